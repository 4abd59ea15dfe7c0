import type { Config } from '../../config/index';
import { type Carrier, type CarrierAccepted, CarrierRejected, type CarrierSend, CarrierUnavailable } from '../types';
import { parseTwilioInbound, parseTwilioReceipt, twilioCallbackNumber, verifyTwilioSignature } from './callbacks';
import { twilioCodeMeaning } from './errors';
import { twilioClient, type TwilioCredentials } from './client';

export { formParams } from './callbacks';
export { classifyTwilioAnswer, twilioCodeMeaning } from './errors';

export interface TwilioSettings extends TwilioCredentials {
  /** `simulator` for the stack's Twilio-shaped simulator; otherwise `twilio`. */
  name?: 'twilio' | 'simulator';
  /** The account's auth token: Twilio signs its callbacks with it even when the REST calls use an API key. */
  authToken: string;
  messagingServiceSid?: string;
  from?: string;
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
  };
}

/** How far a lookup after a crash reaches back before the dispatch time (clocks differ). */
const CLOCK_SKEW_MS = 60_000;
/** The newest messages to one number a lookup reads: a retry follows its crash by minutes, not by hundreds of texts. */
const LOOKUP_LIMIT = 100;

/** Anything thrown that is not already classified (network errors, timeouts) is "unavailable", named by its code only. */
function unclassified(error: unknown): Error {
  if (error instanceof CarrierRejected || error instanceof CarrierUnavailable) return error;
  const code = (error as { code?: unknown }).code;
  return new CarrierUnavailable(`Twilio unreachable: ${typeof code === 'string' ? code : (error as Error).name ?? 'error'}`);
}

export function createTwilioCarrier(settings: TwilioSettings): Carrier {
  const client = twilioClient(settings);
  const sender = settings.messagingServiceSid ?? settings.from;
  if (!sender) throw new Error('Twilio needs TWILIO_MESSAGING_SERVICE_SID or TWILIO_FROM');
  const origin = settings.messagingServiceSid ? { messagingServiceSid: settings.messagingServiceSid } : { from: settings.from! };

  async function create(to: string, body: string, statusCallback?: string): Promise<CarrierAccepted> {
    try {
      const message = await client.messages.create({ to, body, ...origin, ...(statusCallback ? { statusCallback } : {}) });
      const segments = Number(message.numSegments);
      return { providerRef: message.sid, ...(segments > 0 ? { segments } : {}) };
    } catch (error) {
      throw unclassified(error);
    }
  }

  return {
    name: settings.name ?? 'twilio',
    sender,
    send: (message: CarrierSend) => create(message.to, message.text, message.statusCallbackUrl),

    /**
     * Twilio has no client reference: the lookup reads the newest messages to the recipient (from our
     * number, when we send from one) and takes the newest outbound one with the same text created since
     * the dispatch. Not by DateSent: Twilio sets it only once the text left its queue, and to the day.
     * The residual risk: the same text to the same number twice within the window with the first copy
     * lost is taken as sent; the caller refuses a sid another message of ours already holds.
     */
    async findSent(message: CarrierSend): Promise<CarrierAccepted | null> {
      const since = message.dispatchedAt.getTime() - CLOCK_SKEW_MS;
      try {
        const listed = await client.messages.list({ to: message.to, ...(settings.from && !settings.messagingServiceSid ? { from: settings.from } : {}), limit: LOOKUP_LIMIT });
        const match = listed
          .filter((candidate) => candidate.direction?.startsWith('outbound') && candidate.body === message.text && candidate.dateCreated?.getTime() >= since)
          .filter((candidate) => !settings.messagingServiceSid || candidate.messagingServiceSid === settings.messagingServiceSid)
          .sort((a, b) => b.dateCreated.getTime() - a.dateCreated.getTime())[0];
        if (!match) return null;
        const segments = Number(match.numSegments);
        return { providerRef: match.sid, ...(segments > 0 ? { segments } : {}) };
      } catch (error) {
        throw unclassified(error);
      }
    },

    verify: async (callback) => verifyTwilioSignature(settings.authToken, callback),
    parseReceipt: parseTwilioReceipt,
    describeCode: twilioCodeMeaning,
    parseInbound: (callback) => parseTwilioInbound(callback),
    numberOf: twilioCallbackNumber,
    async reply(to: string, text: string) {
      await create(to, text);
    },
  };
}
