import express, { Router, type Request } from 'express';
import type { Logger } from 'pino';
import type { Admissions } from '../../starters/admission';
import type { InboundDeps } from '../../use-cases/integrations/inbound';
import { receiveHubspotWebhook } from '../../use-cases/integrations/hubspot-inbound';
import { receivePipedriveWebhook } from '../../use-cases/integrations/pipedrive-inbound';
import { receiveSalesforceOutboundMessage, SOAP_ACK } from '../../use-cases/integrations/salesforce-inbound';
import { BUSINESS_PATTERN } from '../../use-cases/input/validation';

export type InboundRoutesDeps = Omit<InboundDeps, 'onHandOverError' | 'handOvers'> & {
  admission?: Pick<Admissions, 'leads'>;
  /** Where the CRMs reach this API: the signed URL is this plus the request's path. Unset: the request's own origin. */
  publicBaseUrl?: string;
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
  const businessOk = (req: Request) => BUSINESS_PATTERN.test(req.params.business as string);

  router.post('/integrations/hubspot/:business/webhook', raw, async (req, res, next) => {
    if (!businessOk(req)) return next('route');
    const uri = (deps.publicBaseUrl ?? `${req.protocol}://${req.get('host')}`).replace(/\/+$/, '') + req.originalUrl;
    const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    res.json(await receiveHubspotWebhook(inbound, req.params.business as string, { method: req.method, uri, rawBody, headers: headersOf(req) }));
  });

  router.post('/integrations/salesforce/:business/outbound-message', raw, async (req, res, next) => {
    if (!businessOk(req)) return next('route');
    await receiveSalesforceOutboundMessage(inbound, req.params.business as string, Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
    res.status(200).type('text/xml').send(SOAP_ACK);
  });

  router.post('/integrations/pipedrive/:business/webhook', raw, async (req, res, next) => {
    if (!businessOk(req)) return next('route');
    res.json(await receivePipedriveWebhook(inbound, req.params.business as string, req.get('authorization'), Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)));
  });

  return router;
}
