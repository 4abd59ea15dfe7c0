import type { Client as TemporalClient } from '@temporalio/client';
import express, { Router, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { Carrier, CarrierCallback } from '../../carriers';
import { DEFAULT_SMS_HELP_TEXT } from '../../config/index';
import type { DatabaseDeps } from '../../use-cases/database';
import { receiveInbound } from '../../use-cases/carriers/inbound';
import { recordReceipt, type ReceiptDeps } from '../../use-cases/carriers/receipts';
import type { CarrierCallbackAnswer } from '../../use-cases/carriers/contract';
import { noCarrier, onlyCarrier, verifiedCallback } from './callback';
import { numberCarriers, type NumberCarriers } from '../../carriers/numbers';

export interface ProviderRoutesDeps extends DatabaseDeps {
  /** The configured carrier; without one, every `/providers/…` route is a 404. */
  carrier?: Carrier;
  /** The carriers of businesses' own numbers, whose accounts sign the callbacks about them. */
  carriers?: NumberCarriers;
  /** Each number's A2P registration: read again when a receipt's code says it forbade the text. */
  registrations?: ReceiptDeps['registrations'];
  /** SHARED_SENDER_MATCH_DAYS in ms. */
  sharedSenderMatchMs?: number;
  /** Where carriers reach this API: the signed URL is this plus the request's path. Unset: the request's own host. */
  publicBaseUrl?: string;
  /** Where a message's run is told of its receipt, and a reply routed to a new owner gets its workflows. */
  temporal?: TemporalClient;
  taskQueue?: string;
  /** What HELP and INFO are answered with (SMS_HELP_TEXT). */
  smsHelpText?: string;
  /** The budgets of these unauthenticated doors, per source address and in total (publicDoor); unset: none. */
  doorBudget?: RequestHandler;
}

/** Twilio reads an answer to an inbound text as TwiML: an empty `<Response/>` sends nothing back. */
const TWIML_NOTHING = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

function answer(res: Response, carrier: Carrier): void {
  if (carrier.name === 'twilio' || carrier.name === 'simulator') res.status(200).type('text/xml').send(TWIML_NOTHING);
  else res.status(200).json({ received: true } satisfies CarrierCallbackAnswer);
}

/** Seconds from `sent` to `delivered`, on the API's registry (the API is where receipts arrive). */
function deliveredSeconds(registry: Registry): Histogram {
  const name = 'crm_message_sent_to_delivered_seconds';
  return (
    (registry.getSingleMetric(name) as Histogram | undefined) ??
    new Histogram({
      name,
      help: 'Seconds from a message leaving (sent) to its carrier reporting it delivered',
      buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 3600],
      registers: [registry],
    })
  );
}

/** Inbound texts that answered no message of ours: kept in `unmatched_inbound`, counted here. */
function unmatchedTexts(registry: Registry): Counter {
  const name = 'crm_inbound_unmatched_total';
  return (
    (registry.getSingleMetric(name) as Counter | undefined) ??
    new Counter({ name, help: 'Inbound texts from a number no outbound message went to from our sender (kept, not dropped)', registers: [registry] })
  );
}

/** Replies on the shared sender that more than one business or user could own: kept unmatched, shown to none. */
function ambiguousTexts(registry: Registry): Counter {
  const name = 'crm_inbound_ambiguous_total';
  return (
    (registry.getSingleMetric(name) as Counter | undefined) ??
    new Counter({ name, help: 'Inbound texts on the shared sender from a phone more than one business or user texted lately (kept unmatched, shown to none)', registers: [registry] })
  );
}

const FINAL_STATUSES = new Set(['delivered', 'read', 'undelivered', 'failed']);

/**
 * The carriers' public callbacks, outside the business routes: no JWT, the carrier's signature instead.
 * The body is read raw, whatever its type (Twilio posts a form, Telnyx and Vonage JSON), since the
 * signature covers it byte for byte.
 */
export function providersRouter(deps: ProviderRoutesDeps & { registry: Registry; logger: Logger }): Router {
  const { carrier, logger } = deps;
  const router = Router();
  const delivered = carrier && deliveredSeconds(deps.registry);
  const unmatched = carrier && unmatchedTexts(deps.registry);
  const ambiguous = carrier && ambiguousTexts(deps.registry);
  // A carrier handed in apart from the numbers' (a test's override) answers for its callbacks alone.
  const carriers = deps.carriers?.deployment === carrier ? deps.carriers : (carrier && numberCarriers(carrier, { ofBusiness: async () => null, holder: async () => null }, () => carrier));
  // Without a carrier the routes still exist (the OpenAPI document names them) and answer 404.
  const verified = (kind: 'receipt' | 'inbound') =>
    carriers ? [onlyCarrier(carriers.deployment), ...(deps.doorBudget ? [deps.doorBudget] : []), express.raw({ type: () => true, limit: '100kb' }), verifiedCallback(carriers, kind, deps.publicBaseUrl)] : [noCarrier];

  const receipt: RequestHandler = async (_req, res) => {
    const callback = res.locals.callback as CarrierCallback;
    const outcome = await recordReceipt(
      {
        prisma: deps.prisma,
        carrier: carrier!,
        temporal: deps.temporal,
        registrations: deps.registrations,
        observeDelivered: (seconds) => delivered!.observe(seconds),
        onTellFailed: (error) => logger.warn({ event: 'carrier.receipt_not_followed', error: (error as Error)?.message }, 'a message\'s run was not told of its receipt'),
      },
      callback,
    );
    // A line per message a receipt ends (the log provider writes its own), naming it without its phone or text.
    if (outcome?.applied && FINAL_STATUSES.has(outcome.message.status)) {
      const { id, business, status, errorCode } = outcome.message;
      logger.info({ event: `message.${status}`, provider: carrier!.name, id, business, ...(errorCode && { errorCode }) }, `message ${status}`);
    }
    answer(res, carrier!);
  };
  router.post('/providers/:carrier/status', ...verified('receipt'), receipt);
  router.post('/providers/:carrier/status/:messageId', ...verified('receipt'), receipt);

  router.post('/providers/:carrier/inbound', ...verified('inbound'), async (_req, res) => {
    const callback = res.locals.callback as CarrierCallback;
    await receiveInbound(
      {
        prisma: deps.prisma,
        carrier: carrier!,
        answeringCarrier: res.locals.numberCarrier as Carrier,
        sharedSenderMatchMs: deps.sharedSenderMatchMs,
        countAmbiguous: () => ambiguous!.inc(),
        helpText: deps.smsHelpText ?? DEFAULT_SMS_HELP_TEXT,
        countUnmatched: () => unmatched!.inc(),
        // The SDK's error may quote the number or the text: only its kind is logged.
        onReplyFailed: (error) => logger.warn({ event: 'carrier.reply_failed', carrier: carrier!.name, error: (error as Error)?.name }, 'a keyword\'s answer was not sent'),
        ...(deps.temporal && deps.taskQueue && { routing: { prisma: deps.prisma, temporal: deps.temporal, taskQueue: deps.taskQueue } }),
      },
      callback,
    );
    answer(res, carrier!);
  });

  return router;
}
