import { answerTooLargeIn, answerTooLargeRefusal, cappedFetch, failureOfStatusOnly, sendAnswerTooLarge } from '../answer-cap';
import type { Carrier, CarrierAccepted, CarrierCallback, CarrierHandedOver, CarrierSend, Channel } from '../types';
import { CarrierRejected, CarrierUnavailable } from '../types';
import { classifyTelnyxError, isTelnyxRegistrationCode, telnyxCodeMeaning } from './errors';
import { telnyxRegistration } from './registration';
import { priceOf, receiptOf, telnyxCallbackNumber } from './events';
import { inboundOf } from './inbound';
import { telnyxMediaFetcher } from './media';
import { telnyxMediaUrls, telnyxWhatsappParams } from './outbound';
import { telnyxPublicKey } from './public-key';
import { telnyxRcsParams } from './rcs';
import { telnyxSdk } from './sdk';

export interface TelnyxSettings {
  TELNYX_API_KEY?: string;
  /** The number sent from; when absent, TELNYX_MESSAGING_PROFILE_ID picks one of the profile's numbers. */
  TELNYX_FROM?: string;
  TELNYX_MESSAGING_PROFILE_ID?: string;
  TELNYX_PUBLIC_KEY?: string;
  /** Telnyx's REST base, `…/v2` (default https://api.telnyx.com/v2): a fake in tests, another edge. */
  TELNYX_API_URL?: string;
  /** A business number that carries RCS: its RCS agent (`agent_id`); RCS falls back to SMS/MMS from TELNYX_FROM. */
  TELNYX_RCS_AGENT_ID?: string;
}

/** Below the delivery activity's 20-second attempt, so a slow answer fails the attempt, not the worker slot. */
const REQUEST_TIMEOUT_MS = 10_000;
/** How far back of the dispatch a lookup after a crash searches: clocks differ. */
const LOOKUP_SKEW_MS = 5 * 60 * 1000;
/** Messages to one recipient in that window looked at, and retrieved one by one when their record lacks the webhook URL. */
const LOOKUP_RECORDS = 100;
const LOOKUP_RETRIEVALS = 20;

const REF = /^[A-Za-z0-9._:-]{1,200}$/;

/**
 * Telnyx through its official SDK: `POST /v2/messages` with the bearer key, `from` (TELNYX_FROM) or
 * `messaging_profile_id`, the text (and an MMS's `media_urls`), and this message's receipt URL as
 * `webhook_url` with `use_profile_webhooks: false`, so its receipts come to that URL only; WhatsApp through
 * `POST /v2/messages/whatsapp` (./outbound.ts). Webhooks are verified with the SDK's Ed25519 check
 * (signature over `<telnyx-timestamp>|<raw body>`, 5 minutes' tolerance).
 */
export function createTelnyxCarrier(settings: TelnyxSettings): Carrier {
  const { TELNYX_API_KEY: apiKey, TELNYX_FROM: from, TELNYX_MESSAGING_PROFILE_ID: profile } = settings;
  if (!apiKey || !(from || profile) || !settings.TELNYX_PUBLIC_KEY) {
    throw new Error('Invalid configuration: MESSAGE_PROVIDER=telnyx needs TELNYX_API_KEY, TELNYX_FROM or TELNYX_MESSAGING_PROFILE_ID, and TELNYX_PUBLIC_KEY');
  }
  const client = new (telnyxSdk().default)({
    apiKey,
    publicKey: telnyxPublicKey(settings.TELNYX_PUBLIC_KEY),
    baseURL: settings.TELNYX_API_URL ?? 'https://api.telnyx.com/v2',
    // A retried POST could send twice: attempts are the workflow's, after a lookup (`findSent`).
    maxRetries: 0,
    timeout: REQUEST_TIMEOUT_MS,
    // The SDK's debug log prints request bodies (phones, texts); TELNYX_LOG must not turn it on.
    logLevel: 'off',
    // Each answer read to CARRIER_ANSWER_MAX_BYTES (../answer-cap.ts).
    fetch: cappedFetch('Telnyx'),
  });
  const sender = from ? { from } : { messaging_profile_id: profile! };

  type Outgoing = Pick<CarrierSend, 'to' | 'text' | 'media' | 'template' | 'suggestions'> & { channel: Channel };

  /** One request to Telnyx: SMS or MMS through `messages.send`, WhatsApp through `messages.whatsapp`, RCS through `messages.rcs.send`. */
  function request(message: Outgoing, webhookUrl?: string): Promise<{ data?: { id?: unknown; parts?: unknown; cost?: unknown } }> {
    if (message.channel === 'whatsapp') return client.messages.whatsapp(telnyxWhatsappParams(message, from, webhookUrl));
    if (message.channel === 'rcs') {
      if (!settings.TELNYX_RCS_AGENT_ID) return Promise.reject(new CarrierRejected('rcs-sender', 'The number has no RCS agent (rcs_agent)'));
      return client.messages.rcs.send(telnyxRcsParams(message, { agentId: settings.TELNYX_RCS_AGENT_ID, messagingProfileId: profile, fallbackFrom: from }, webhookUrl));
    }
    const media = message.media.length > 0 ? { media_urls: telnyxMediaUrls(message.media) } : {};
    const text = message.media.length === 0 || message.text ? { text: message.text } : {};
    return client.messages.send({ to: message.to, ...text, ...media, ...sender, ...(webhookUrl ? { webhook_url: webhookUrl } : {}), use_profile_webhooks: false });
  }

  async function send(message: Outgoing, webhookUrl?: string): Promise<CarrierHandedOver> {
    let data: { id?: unknown; parts?: unknown; cost?: unknown } | undefined;
    try {
      ({ data } = await request(message, webhookUrl));
    } catch (error) {
      // Our own refusal of the request (a media URL, a WhatsApp sender) as it is; Telnyx's answers classified.
      if (error instanceof CarrierRejected) throw error;
      const tooLarge = answerTooLargeIn(error);
      if (tooLarge) return sendAnswerTooLarge(tooLarge, (status) => failureOfStatusOnly('Telnyx', status));
      throw classifyTelnyxError(error);
    }
    const providerRef = typeof data?.id === 'string' && REF.test(data.id) ? data.id : undefined;
    // Accepted without an id: the attempt is retried, and the retry looks the message up first.
    if (!providerRef) throw new CarrierUnavailable('Telnyx accepted the message without an id');
    const price = priceOf(data!.cost);
    return { providerRef, ...(typeof data!.parts === 'number' ? { segments: data!.parts } : {}), ...(price ? { price } : {}) };
  }

  /** The `webhook_url` Telnyx keeps on a message; undefined for one it no longer finds. */
  async function webhookUrlOf(id: string): Promise<string | undefined> {
    try {
      return (await client.messages.retrieve(id)).data?.webhook_url ?? undefined;
    } catch (error) {
      if (error instanceof telnyxSdk().NotFoundError) return undefined;
      throw error;
    }
  }

  /** The message whose `webhook_url` is this one's receipt URL (which carries our message id), if Telnyx has it. */
  async function findSent(message: CarrierSend): Promise<CarrierAccepted | null> {
    try {
      const since = new Date(message.dispatchedAt.getTime() - LOOKUP_SKEW_MS).toISOString();
      let looked = 0;
      let retrieved = 0;
      const records = client.detailRecords.list({
        filter: { record_type: 'messaging', direction: 'outbound', cld: message.to, created_at: { gte: since } },
        sort: ['-created_at'],
        'page[size]': 50,
      });
      for await (const record of records) {
        if (++looked > LOOKUP_RECORDS) break;
        const mdr = record as { uuid?: string; parts?: number; cost?: string; currency?: string; delivery_status_webhook_url?: string };
        if (!mdr.uuid || !REF.test(mdr.uuid)) continue;
        let webhookUrl = mdr.delivery_status_webhook_url;
        if (!webhookUrl) {
          if (++retrieved > LOOKUP_RETRIEVALS) continue;
          webhookUrl = await webhookUrlOf(mdr.uuid);
        }
        if (webhookUrl !== message.statusCallbackUrl) continue;
        const price = priceOf({ amount: mdr.cost, currency: mdr.currency });
        return { providerRef: mdr.uuid, ...(typeof mdr.parts === 'number' ? { segments: mdr.parts } : {}), ...(price ? { price } : {}) };
      }
      return null;
    } catch (error) {
      if (answerTooLargeIn(error)) throw answerTooLargeRefusal('Telnyx', 'the lookup of a sent message');
      const classified = classifyTelnyxError(error);
      // A lookup that cannot be made is no answer: the attempt waits and asks again rather than sending blind.
      throw classified instanceof CarrierUnavailable ? classified : new CarrierUnavailable(`Telnyx lookup refused (${classified.code})`);
    }
  }

  return {
    name: 'telnyx',
    sender: from ?? profile!,
    send: (message) => send(message, message.statusCallbackUrl),
    findSent,
    async verify(callback: CarrierCallback) {
      const headers = Object.fromEntries(Object.entries(callback.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
      try {
        await client.webhooks.unwrap(callback.rawBody.toString('utf8'), { headers });
        return true;
      } catch {
        return false;
      }
    },
    parseReceipt: (callback) => receiptOf(callback.rawBody, callback.messageId),
    describeCode: telnyxCodeMeaning,
    parseInbound: (callback) => inboundOf(callback.rawBody),
    numberOf: (callback, kind) => telnyxCallbackNumber(callback.rawBody, kind),
    async reply(to, text, channel = 'sms') {
      await send({ to, text, channel, media: [] });
    },
    fetchMedia: telnyxMediaFetcher(settings.TELNYX_API_URL),
    async readRegistration(number) {
      try {
        return await telnyxRegistration(client, number);
      } catch (error) {
        if (answerTooLargeIn(error)) throw answerTooLargeRefusal('Telnyx', 'the registration lookup');
        const classified = classifyTelnyxError(error);
        throw classified instanceof CarrierUnavailable ? classified : new CarrierUnavailable(`Telnyx registration lookup refused (${classified.code})`);
      }
    },
    isRegistrationCode: isTelnyxRegistrationCode,
  };
}
