import express, { Router, type Request, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Admissions } from '../../starters/admission';
import type { InboundDeps } from '../../use-cases/integrations/inbound';
import { receiveHubspotWebhook } from '../../use-cases/integrations/hubspot-inbound';
import { receivePipedriveWebhook } from '../../use-cases/integrations/pipedrive-inbound';
import { invalidInboundToken, receiveSalesforceOutboundMessage, SOAP_ACK, verifySalesforceInboundToken } from '../../use-cases/integrations/salesforce-inbound';
import { BUSINESS_PATTERN } from '../../use-cases/input/validation';
import { perConnectorRateLimit } from '../http/rate-limit';

export type InboundRoutesDeps = Omit<InboundDeps, 'onHandOverError' | 'handOvers'> & {
  admission?: Pick<Admissions, 'leads'>;
  /** Where the CRMs reach this API: the signed URL is this plus the request's path. Unset: the request's own origin. */
  publicBaseUrl?: string;
  /** Requests a minute to one business's door of one CRM (CRM_INBOUND_RATE_LIMIT_PER_MINUTE); 0 or unset: no limit. */
  crmInboundRateLimitPerMinute?: number;
  /** The budgets of these unauthenticated doors, per source address and in total (publicDoor); unset: none. */
  doorBudget?: RequestHandler;
};

/** 100 events of a few hundred bytes each, with room to spare. */
const INBOUND_BODY_LIMIT = '1mb';

const headersOf = (req: Request) =>
  Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]));

/**
 * The CRMs' public inbound routes, outside the business routes: no token, the CRM's own proof instead
 * (a signature, or credentials), checked with the business's connector. The body is read raw, whatever
 * its type, since HubSpot's signature covers it byte for byte.
 */
export function crmInboundRouter(deps: InboundRoutesDeps & { logger: Logger }): Router {
  const router = Router();
  const inbound: InboundDeps = {
    ...deps,
    handOvers: deps.admission?.leads,
    onHandOverError: (error) => deps.logger.warn({ event: 'crm.hand_over_failed', err: error }, 'the CRM event waits for the sweep'),
  };
  const raw = express.raw({ type: () => true, limit: INBOUND_BODY_LIMIT });
  // The source's budget, the business name's form and the door's rate, before any database work or the body.
  const door = (crm: string) => [
    deps.doorBudget ?? ((_req: Request, _res: unknown, next: () => void) => next()),
    (req: Request, _res: unknown, next: (route?: 'route') => void) => next(BUSINESS_PATTERN.test(req.params.business as string) ? undefined : 'route'),
    perConnectorRateLimit(crm, deps.crmInboundRateLimitPerMinute ?? 0),
  ];
  const bodyOf = (req: Request) => (Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));

  router.post('/integrations/hubspot/:business/webhook', ...door('hubspot'), raw, async (req, res) => {
    const uri = (deps.publicBaseUrl ?? `${req.protocol}://${req.get('host')}`).replace(/\/+$/, '') + req.originalUrl;
    res.json(await receiveHubspotWebhook(inbound, req.params.business as string, { method: req.method, uri, rawBody: bodyOf(req), headers: headersOf(req) }));
  });

  // The URL's last segment is the connector's secret, checked before the body is read.
  router.post('/integrations/salesforce/:business/outbound-message/:token', ...door('salesforce'), async (req, _res, next) => {
    await verifySalesforceInboundToken(inbound, req.params.business as string, req.params.token as string);
    next();
  }, raw, async (req, res) => {
    await receiveSalesforceOutboundMessage(inbound, req.params.business as string, bodyOf(req));
    res.status(200).type('text/xml').send(SOAP_ACK);
  });
  // The URL of before the secret: refused, its body unread.
  router.post('/integrations/salesforce/:business/outbound-message', ...door('salesforce'), () => {
    throw invalidInboundToken();
  });

  router.post('/integrations/pipedrive/:business/webhook', ...door('pipedrive'), raw, async (req, res) => {
    res.json(await receivePipedriveWebhook(inbound, req.params.business as string, req.get('authorization'), bodyOf(req)));
  });

  return router;
}
