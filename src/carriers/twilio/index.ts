import type { Config } from '../../config/index';
import { answerTooLargeIn, answerTooLargeRefusal, sendAnswerTooLarge } from '../answer-cap';
import { type Carrier, type CarrierAccepted, type CarrierHandedOver, CarrierRejected, type CarrierSend, CarrierUnavailable } from '../types';
import { twilioAddress } from './addresses';
import { parseTwilioInbound, parseTwilioReceipt, twilioCallbackNumber, verifyTwilioSignature } from './callbacks';
import { twilioClient, type TwilioCredentials } from './client';
import { classifyTwilioAnswer, isTwilioRegistrationCode, twilioCodeMeaning } from './errors';
import { sentCopy } from './find-sent';
import { twilioMediaFetcher } from './media';
import { createOptions, rcsContent, type Origin, type Outgoing } from './send';
import { twilioTemplateApproval } from './templates';
import { twilioRegistration } from './registration';

export { formParams } from './callbacks';
export { classifyTwilioAnswer, twilioCodeMeaning } from './errors';

export interface TwilioSettings extends TwilioCredentials {
  /** `simulator` for the stack's Twilio-shaped simulator; otherwise `twilio`. */
  name?: 'twilio' | 'simulator';
  /** The account's auth token: Twilio signs its callbacks with it even when the REST calls use an API key. */
  authToken: string;
  messagingServiceSid?: string;
  from?: string;
  /** A business number that carries RCS: the number Twilio falls back to (`FallbackFrom`) when RCS cannot reach the handset. */
  rcsFallbackFrom?: string;
}

/** The Twilio settings of a configuration that names Twilio (loadConfig has checked they are complete). */
export function twilioSettingsOf(config: Config): TwilioSettings {
  return {
    accountSid: config.TWILIO_ACCOUNT_SID!,
    authToken: config.TWILIO_AUTH_TOKEN!,
    apiKey: config.TWILIO_API_KEY_SID && config.TWILIO_API_KEY_SECRET ? { sid: config.TWILIO_API_KEY_SID, secret: config.TWILIO_API_KEY_SECRET } : undefined,
    messagingServiceSid: config.TWILIO_MESSAGING_SERVICE_SID,
    from: config.TWILIO_FROM,
    apiUrl: config.TWILIO_API_URL,
    contentApiUrl: config.TWILIO_CONTENT_API_URL,
  };
}

/** The newest messages to one number a lookup reads: a retry follows its crash by minutes, not by hundreds of texts. */
const LOOKUP_LIMIT = 100;

/**
 * Anything thrown that is not already classified (network errors, timeouts) is "unavailable", named by
 * its code only; an answer over the cap to `action` (no send) is final.
 */
function unclassified(error: unknown, action: string): Error {
  if (answerTooLargeIn(error)) return answerTooLargeRefusal('Twilio', action);
  if (error instanceof CarrierRejected || error instanceof CarrierUnavailable) return error;
  const code = (error as { code?: unknown }).code;
  return new CarrierUnavailable(`Twilio unreachable: ${typeof code === 'string' ? code : (error as Error).name ?? 'error'}`);
}

/** Only a refusal is taken as "no records"; Twilio out of reach is still unavailable (the lookup waits). */
function rcsListRefused(error: unknown): never[] {
  if (error instanceof CarrierRejected) return [];
  throw error;
}

export function createTwilioCarrier(settings: TwilioSettings): Carrier {
  const client = twilioClient(settings);
  const sender = settings.messagingServiceSid ?? settings.from;
  if (!sender) throw new Error('Twilio needs TWILIO_MESSAGING_SERVICE_SID or TWILIO_FROM');
  const origin: Origin = settings.messagingServiceSid
    ? { messagingServiceSid: settings.messagingServiceSid, ...(settings.rcsFallbackFrom && { fallbackFrom: settings.rcsFallbackFrom }) }
    : { from: settings.from! };
  const fetchMedia = twilioMediaFetcher(settings, client);

  /** RCS's suggested replies go as a content made for the message (a retry makes another, which nothing else uses). */
  async function contentFor(message: Outgoing & { id?: string }): Promise<string | undefined> {
    if (message.channel !== 'rcs' || !message.suggestions?.length) return undefined;
    const made = await client.content.v1.contents.create(rcsContent({ id: message.id ?? 'reply', text: message.text, media: message.media, suggestions: message.suggestions }) as never);
    return made.sid;
  }

  async function create(message: Outgoing & { id?: string }, statusCallback?: string): Promise<CarrierHandedOver> {
    try {
      const created = await client.messages.create(createOptions(origin, message, statusCallback, await contentFor(message)));
      const segments = Number(created.numSegments);
      return { providerRef: created.sid, ...(segments > 0 ? { segments } : {}) };
    } catch (error) {
      const tooLarge = answerTooLargeIn(error);
      if (tooLarge) return sendAnswerTooLarge(tooLarge, (status) => classifyTwilioAnswer(status, undefined));
      throw unclassified(error, 'the message');
    }
  }

  return {
    name: settings.name ?? 'twilio',
    sender,
    send: (message: CarrierSend) => create(message, message.statusCallbackUrl),

    /**
     * Twilio has no client reference: the lookup reads the newest messages to the recipient on the
     * message's channel (`whatsapp:+…` on WhatsApp; from our number, when we send from one) and takes the
     * newest outbound copy created since the dispatch (find-sent.ts). Not by DateSent: Twilio sets it only
     * once the message left its queue, and to the day. The caller refuses a sid another message of ours
     * already holds.
     */
    async findSent(message: CarrierSend): Promise<CarrierAccepted | null> {
      try {
        const from = 'from' in origin ? { from: twilioAddress(message.channel, origin.from) } : {};
        const listed = await client.messages.list({ to: twilioAddress(message.channel, message.to), ...from, limit: LOOKUP_LIMIT });
        // An RCS message that went by RCS is Twilio's record to `rcs:+1…`; one it fell back to SMS, to the plain number.
        // A refusal of that filter leaves the plain number's records: at worst one more copy, never a failed message.
        if (message.channel === 'rcs') listed.push(...(await client.messages.list({ to: `rcs:${message.to}`, limit: LOOKUP_LIMIT }).catch(rcsListRefused)));
        const match = sentCopy(listed, message, settings.messagingServiceSid);
        if (!match) return null;
        const segments = Number(match.numSegments);
        return { providerRef: match.sid, ...(segments > 0 ? { segments } : {}) };
      } catch (error) {
        throw unclassified(error, 'the lookup of a sent message');
      }
    },

    verify: async (callback) => verifyTwilioSignature(settings.authToken, callback),
    parseReceipt: parseTwilioReceipt,
    describeCode: twilioCodeMeaning,
    parseInbound: (callback) => parseTwilioInbound(callback),
    numberOf: twilioCallbackNumber,
    async reply(to, text, channel = 'sms') {
      await create({ to, text, channel, media: [] });
    },
    async templateApproval(ref) {
      try {
        return await twilioTemplateApproval(client, ref);
      } catch (error) {
        throw unclassified(error, 'the template lookup');
      }
    },
    fetchMedia,
    async readRegistration(number) {
      try {
        return await twilioRegistration(client, number, settings.messagingServiceSid);
      } catch (error) {
        throw unclassified(error, 'the registration lookup');
      }
    },
    isRegistrationCode: isTwilioRegistrationCode,
  };
}
