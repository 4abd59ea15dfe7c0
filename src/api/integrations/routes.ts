import { Router, type Request } from 'express';
import type { DatabaseDeps } from '../../use-cases/database';
import type { Client as TemporalClient } from '@temporalio/client';
import type { CrmEndpoints } from '../../config/index';
import type { OutboundNetwork } from '../../net/outbound';
import type { SecretBox } from '../../secrets/secret-box';
import { deleteCrmConnector, getCrmConnector, listCrmConnectors, putCrmConnector, rotateInboundToken } from '../../use-cases/integrations/connectors';
import type { InboundKeyCache } from '../../use-cases/integrations/inbound-keys';
import { crmOf } from '../../use-cases/integrations/request';
import { syncCrmConnector } from '../../use-cases/integrations/sync';
import { HttpProblem } from '../http/problem';
import { scopeOf } from '../http/scope';
import { refuseAnyField } from '../../use-cases/input/known-fields';

export interface IntegrationRoutesDeps extends DatabaseDeps {
  /** Seals the connectors' credentials (SECRETS_KEY). */
  secrets: SecretBox;
  /** Where the CRMs reach this API; unset: the request's own origin (refused in production). */
  publicBaseUrl?: string;
  /** NODE_ENV=production: the connectors' routes need PUBLIC_BASE_URL. */
  production?: boolean;
  temporal: TemporalClient;
  taskQueue: string;
  /** The CRMs' REST bases when not the vendors' (the sweep lists records through them). */
  crmEndpoints?: CrmEndpoints;
  /** What the sweep's SDK calls connect through (the public-address guard in production). */
  crmNetwork?: OutboundNetwork;
  /** The inbound doors' cached keys, forgotten when a connector changes. */
  inboundKeys?: InboundKeyCache;
}

/** Where a CRM posts: PUBLIC_BASE_URL, else (outside production) the origin this request came to. */
export function inboundBaseOf(req: Request, publicBaseUrl: string | undefined, production = false): string {
  if (publicBaseUrl) return publicBaseUrl;
  // In production a Host header is the caller's to choose: the URL pasted into a CRM must not come from it.
  if (production) throw new HttpProblem(503, PUBLIC_BASE_URL_MISSING, '/problems/unavailable');
  return `${req.protocol}://${req.get('host')}`;
}

export const PUBLIC_BASE_URL_MISSING = 'PUBLIC_BASE_URL is not set: in production a CRM connector needs the public address the CRMs post to (docs/integrations.md)';

/** A business's connectors to its CRMs: `GET /integrations`, `PUT`, `GET`, `DELETE /integrations/{crm}`. */
export function integrationsRouter(deps: IntegrationRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.get('/integrations', async (req, res) => {
    res.json(await listCrmConnectors(deps, scopeOf(req), inboundBaseOf(req, deps.publicBaseUrl, deps.production)));
  });

  router.put('/integrations/:crm', async (req, res) => {
    const { created, connector } = await putCrmConnector(deps, scopeOf(req), crmOf(req.params.crm as string), req.body, inboundBaseOf(req, deps.publicBaseUrl, deps.production));
    res.status(created ? 201 : 200).json(connector);
  });

  router.get('/integrations/:crm', async (req, res) => {
    res.json(await getCrmConnector(deps, scopeOf(req), crmOf(req.params.crm as string), inboundBaseOf(req, deps.publicBaseUrl, deps.production)));
  });

  router.post('/integrations/:crm/sync', async (req, res) => {
    refuseAnyField(req.body);
    res.json(await syncCrmConnector(deps, scopeOf(req), crmOf(req.params.crm as string)));
  });

  router.post('/integrations/:crm/rotate-inbound-token', async (req, res) => {
    refuseAnyField(req.body);
    res.json(await rotateInboundToken(deps, scopeOf(req), crmOf(req.params.crm as string), inboundBaseOf(req, deps.publicBaseUrl, deps.production)));
  });

  router.delete('/integrations/:crm', async (req, res) => {
    await deleteCrmConnector(deps, scopeOf(req), crmOf(req.params.crm as string));
    res.status(204).end();
  });

  return router;
}
