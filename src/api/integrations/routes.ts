import { Router, type Request } from 'express';
import type { Prisma } from '../../db/prisma';
import type { Client as TemporalClient } from '@temporalio/client';
import type { CrmEndpoints } from '../../config/index';
import type { SecretBox } from '../../secrets/secret-box';
import { deleteCrmConnector, getCrmConnector, putCrmConnector, rotateInboundToken } from '../../use-cases/integrations/connectors';
import type { InboundKeyCache } from '../../use-cases/integrations/inbound-keys';
import { crmOf } from '../../use-cases/integrations/request';
import { syncCrmConnector } from '../../use-cases/integrations/sync';
import { scopeOf } from '../http/scope';

export interface IntegrationRoutesDeps {
  prisma: Prisma;
  /** Seals the connectors' credentials (SECRETS_KEY). */
  secrets: SecretBox;
  /** Where the CRMs reach this API; unset: the request's own origin. */
  publicBaseUrl?: string;
  temporal: TemporalClient;
  taskQueue: string;
  /** The CRMs' REST bases when not the vendors' (the sweep lists records through them). */
  crmEndpoints?: CrmEndpoints;
  /** The inbound doors' cached keys, forgotten when a connector changes. */
  inboundKeys?: InboundKeyCache;
}

/** Where a CRM posts: PUBLIC_BASE_URL, else the origin this request came to. */
export const inboundBaseOf = (req: Request, publicBaseUrl: string | undefined) => publicBaseUrl ?? `${req.protocol}://${req.get('host')}`;

/** A business's connectors to its CRMs: `PUT`, `GET`, `DELETE /integrations/{crm}`. */
export function integrationsRouter(deps: IntegrationRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.put('/integrations/:crm', async (req, res) => {
    const { created, connector } = await putCrmConnector(deps, scopeOf(req), crmOf(req.params.crm as string), req.body, inboundBaseOf(req, deps.publicBaseUrl));
    res.status(created ? 201 : 200).json(connector);
  });

  router.get('/integrations/:crm', async (req, res) => {
    res.json(await getCrmConnector(deps, scopeOf(req), crmOf(req.params.crm as string), inboundBaseOf(req, deps.publicBaseUrl)));
  });

  router.post('/integrations/:crm/sync', async (req, res) => {
    res.json(await syncCrmConnector(deps, scopeOf(req), crmOf(req.params.crm as string)));
  });

  router.post('/integrations/:crm/rotate-inbound-token', async (req, res) => {
    res.json(await rotateInboundToken(deps, scopeOf(req), crmOf(req.params.crm as string), inboundBaseOf(req, deps.publicBaseUrl)));
  });

  router.delete('/integrations/:crm', async (req, res) => {
    await deleteCrmConnector(deps, scopeOf(req), crmOf(req.params.crm as string));
    res.status(204).end();
  });

  return router;
}
