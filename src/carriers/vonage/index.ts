import { answerTooLargeIn, cappedAnswer, failureOfStatusOnly, sendAnswerTooLarge } from '../answer-cap';
import type { Carrier, CarrierHandedOver, CarrierSend } from '../types';
import { CarrierUnavailable } from '../types';
import { classifyVonageError, isVonageRegistrationCode, vonageCodeMeaning } from './errors';
import { inboundOf } from './inbound';
import { vonageMediaFetcher } from './media';
import { type VonageOutbound, vonageOutbound } from './outbound';
import { silenceVonageDebugLog } from './quiet-sdk';
import { vonageRegistrationReader } from './ten-dlc-client';
import { e164Of, receiptOf, verifyVonageSignature, vonageCallbackNumber } from './webhooks';

// Loaded on first use: a process that never talks to Vonage does without the SDK's modules.
const vonageSdk = () => require('@vonage/server-sdk') as typeof import('@vonage/server-sdk');

export interface VonageSettings {
  VONAGE_API_KEY?: string;
  VONAGE_API_SECRET?: string;
  VONAGE_APPLICATION_ID?: string;
  /** The application's private key (PEM), or a path to it: sends are then authenticated with a JWT. */
  VONAGE_PRIVATE_KEY?: string;
  /** The number (or alphanumeric sender id) sent from. */
  VONAGE_FROM?: string;
  VONAGE_SIGNATURE_SECRET?: string;
  /** The Messages API's host (default https://api.nexmo.com): a fake in tests, a regional edge. */
  VONAGE_API_URL?: string;
  /** A business number that carries RCS: its RCS agent's sender id; RCS fails over to SMS/MMS from VONAGE_FROM. */
  VONAGE_RCS_FROM?: string;
}

/** Below the delivery activity's 20-second attempt, so a slow answer fails the attempt, not the worker slot. */
const REQUEST_TIMEOUT_MS = 10_000;

const REF = /^[A-Za-z0-9._:-]{1,200}$/;

type SendParams = Parameters<InstanceType<ReturnType<typeof vonageSdk>['Vonage']>['messages']['send']>[0];

/**
 * The SDK fetches with the global fetch and hands each answer to its client's `parseResponse` (an error's
 * body read later, by classifyVonageError): each answer is read to CARRIER_ANSWER_MAX_BYTES first
 * (../answer-cap.ts).
 */
function readCapped(client: object): void {
  const parsing = client as { parseResponse(request: unknown, response: Response): Promise<unknown> };
  const parse = parsing.parseResponse.bind(parsing);
  parsing.parseResponse = async (request, response) => parse(request, await cappedAnswer('Vonage', response));
}

/**
 * Vonage through its official SDK: `POST /v1/messages` (SMS, MMS and WhatsApp: ./outbound.ts), with a JWT
 * signed by the application's private key when VONAGE_APPLICATION_ID/VONAGE_PRIVATE_KEY are set, else
 * Basic with VONAGE_API_KEY/VONAGE_API_SECRET. Each message carries our id as `client_ref` and its
 * receipt URL as `webhook_url` (Vonage's per-message override of the application's status URL). Webhooks
 * are verified with the SDK's `verifySignature` (HS256, VONAGE_SIGNATURE_SECRET) plus the body's
 * `payload_hash` and a fresh `iat`.
 */
export function createVonageCarrier(settings: VonageSettings): Carrier {
  const { VONAGE_APPLICATION_ID: applicationId, VONAGE_PRIVATE_KEY: privateKey, VONAGE_API_KEY: apiKey, VONAGE_API_SECRET: apiSecret } = settings;
  const jwt = Boolean(applicationId && privateKey);
  const from = settings.VONAGE_FROM;
  const secret = settings.VONAGE_SIGNATURE_SECRET;
  if (!(jwt || (apiKey && apiSecret)) || !from || !secret) {
    throw new Error('Invalid configuration: MESSAGE_PROVIDER=vonage needs VONAGE_APPLICATION_ID and VONAGE_PRIVATE_KEY (or VONAGE_API_KEY and VONAGE_API_SECRET), VONAGE_FROM and VONAGE_SIGNATURE_SECRET');
  }
  silenceVonageDebugLog();
  const vonage = new (vonageSdk().Vonage)(jwt ? { applicationId: applicationId!, privateKey: privateKey! } : { apiKey: apiKey!, apiSecret: apiSecret! }, {
    apiHost: (settings.VONAGE_API_URL ?? 'https://api.nexmo.com').replace(/\/+$/, ''),
    timeout: REQUEST_TIMEOUT_MS,
  });
  readCapped(vonage.messages);

  async function send(request: VonageOutbound, extra: { clientRef?: string; webhookUrl?: string }): Promise<CarrierHandedOver> {
    let uuid: unknown;
    try {
      ({ messageUUID: uuid } = await vonage.messages.send({ ...request, ...extra } as SendParams));
    } catch (error) {
      const tooLarge = answerTooLargeIn(error);
      if (tooLarge) return sendAnswerTooLarge(tooLarge, (status) => failureOfStatusOnly('Vonage', status));
      throw await classifyVonageError(error);
    }
    // Accepted without an id: the attempt is retried (receipts still name our id through client_ref).
    if (typeof uuid !== 'string' || !REF.test(uuid)) throw new CarrierUnavailable('Vonage accepted the message without an id');
    return { providerRef: uuid };
  }

  /** The application's `Bearer <JWT>`, made by the SDK as for its own requests. */
  async function applicationBearer(): Promise<string> {
    const request = { url: '', method: 'GET', type: 'application/json', headers: {} } as unknown as Parameters<typeof vonage.messages.addAuthenticationToRequest>[0];
    const signed = await vonage.messages.addAuthenticationToRequest(request);
    const header = (signed.headers as Record<string, string> | undefined)?.Authorization;
    if (!header?.startsWith('Bearer ')) throw new CarrierUnavailable('Vonage credentials gave no application token');
    return header;
  }

  return {
    name: 'vonage',
    sender: e164Of(from),
    send: async (message: CarrierSend) => send(vonageOutbound(message, from, settings.VONAGE_RCS_FROM), { clientRef: message.id, webhookUrl: message.statusCallbackUrl }),
    /*
     * The Messages API has no lookup of a sent SMS (by client_ref or otherwise; Vonage's Reports API is a
     * separate, asynchronous product), so a send whose answer was lost is sent again. Both copies carry
     * our id as client_ref, so their receipts still reach the one message.
     */
    findSent: async () => null,
    verify: async (callback) =>
      verifyVonageSignature(callback, { secret: secret!, ...(apiKey ? { apiKey } : {}), ...(applicationId ? { applicationId } : {}) }),
    parseReceipt: (callback) => receiptOf(callback.rawBody, callback.messageId),
    describeCode: vonageCodeMeaning,
    // Vonage's 10DLC API takes Basic key:secret only: without them the registration is not read (docs/design.md).
    ...(apiKey && apiSecret
      ? { readRegistration: vonageRegistrationReader({ apiKey, apiSecret }, { host: settings.VONAGE_API_URL?.replace(/\/+$/, ''), timeout: REQUEST_TIMEOUT_MS, readCapped }) }
      : {}),
    isRegistrationCode: isVonageRegistrationCode,
    parseInbound: (callback) => inboundOf(callback.rawBody),
    numberOf: (callback, kind) => vonageCallbackNumber(callback.rawBody, kind),
    async reply(to, text, channel = 'sms') {
      await send(vonageOutbound({ to, text, channel, media: [] }, from), {});
    },
    fetchMedia: vonageMediaFetcher({ apiUrl: settings.VONAGE_API_URL, ...(jwt ? { bearer: () => applicationBearer() } : {}) }),
  };
}
