import { Router, type Request } from 'express';
import type { Prisma } from '../../db/prisma';
import type { Client as TemporalClient } from '@temporalio/client';
import type { CrmEndpoints } from '../../config/index';
import type { OutboundNetwork } from '../../net/outbound';
import type { SecretBox } from '../../secrets/secret-box';
import { deleteCrmConnector, getCrmConnector, listCrmConnectors, putCrmConnector } from '../../use-cases/integrations/connectors';
import { forbidden } from '../http/problem';
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
  /** Production: a connector belongs to its whole business, so its routes need tokens bound to businesses (JWT_BUSINESS_CLAIM). */
  connectorsNeedBoundTokens?: boolean;
  /** What the sweep's SDK calls connect through (the public-address guard in production). */
  crmNetwork?: OutboundNetwork;
}

export const CONNECTORS_NEED_BOUND_TOKENS =
  'A CRM connector belongs to the whole business, so in production it needs tokens bound to the business: set JWT_BUSINESS_CLAIM to the claim naming the businesses a token acts for (docs/interface.md, "Tokens bound to a business")';

/** Where a CRM posts: PUBLIC_BASE_URL, else the origin this request came to. */
export const inboundBaseOf = (req: Request, publicBaseUrl: string | undefined) => publicBaseUrl ?? `${req.protocol}://${req.get('host')}`;

/** A business's connectors to its CRMs: `GET /integrations`, `PUT`, `GET`, `DELETE /integrations/{crm}`. */
export function integrationsRouter(deps: IntegrationRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  // Without the claim any user could take a business's connector first (and its owner then gets 409).
  // A token that carries the claim has already been held to the path's business (authenticate).
  router.use('/integrations', (req, _res, next) => {
    if (deps.connectorsNeedBoundTokens && req.caller!.businesses === undefined) throw forbidden(CONNECTORS_NEED_BOUND_TOKENS);
    next();
  });

  router.get('/integrations', async (req, res) => {
    res.json(await listCrmConnectors(deps, scopeOf(req), inboundBaseOf(req, deps.publicBaseUrl)));
  });

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

  router.delete('/integrations/:crm', async (req, res) => {
    await deleteCrmConnector(deps, scopeOf(req), crmOf(req.params.crm as string));
    res.status(204).end();
  });

  return router;
}
