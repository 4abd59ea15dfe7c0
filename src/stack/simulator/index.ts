import { createHash } from 'node:crypto';
import { TwilioApi } from './twilio-api';

export { MAGIC_TO_ERRORS, MAGIC_UNDELIVERED, TwilioApi, postSignedForm, twilioSignature } from './twilio-api';
export { SIMULATOR_TEMPLATES } from './content-api';

/*
 * The carrier `npm start` runs by default (MESSAGE_PROVIDER=simulator): the Twilio-compatible API of
 * twilio-api.ts on a port of its own, which the Twilio carrier sends to as it would to Twilio. A moment
 * after each send it posts signed receipts to the message's StatusCallback (`sent`, then `delivered`;
 * `undelivered` for +15005550033 to +15005550037; Twilio's magic numbers are refused at once; WhatsApp:
 * `read` after `delivered`, and `failed` with 63016 outside the 24-hour window), serves Twilio's Content
 * API on the same port (SIMULATOR_TEMPLATES at start), and `npm run sms -- [--to <one of its numbers>]
 * [--whatsapp] [--media <file>]… <from> "<text>"` has it post a person's message to the stack's inbound route.
 * It has ten numbers, +15005550000 to +15005550009: +15005550006 is the deployment's shared sender, the
 * others are for businesses to register (`npm run number`).
 */

/** The simulator's sending number (the deployment's shared sender): Twilio's magic "From" that passes every check. */
export const SIMULATOR_NUMBER = '+15005550006';
/** Every number the simulator has, for businesses to register as their own: +15005550000 to +15005550009 (the shared sender among them). */
export const SIMULATOR_NUMBERS = Array.from({ length: 10 }, (_, k) => `+1500555000${k}`);
/** How long after a send its receipts come. */
export const SIMULATOR_RECEIPT_DELAY_MS = 500;
/** How long after a WhatsApp message's `delivered` its `read` comes. */
export const SIMULATOR_READ_DELAY_MS = 2000;
/** How long a content submitted for WhatsApp's approval stays pending. */
export const SIMULATOR_APPROVAL_DELAY_MS = 2000;

/** The simulator's account SID, derived from its auth token so both stay the same across restarts. */
export function simulatorAccountSid(authToken: string): string {
  return `AC${createHash('sha256').update(`simulator account ${authToken}`).digest('hex').slice(0, 32)}`;
}

export interface RunningSimulator {
  url: string;
  accountSid: string;
  number: string;
  api: TwilioApi;
  stop(): Promise<void>;
}

/** Starts the simulator on `port` (0: any free one), posting receipts and texts under `publicBaseUrl` (the API's callback routes). */
export async function startSimulator(options: {
  authToken: string;
  publicBaseUrl: string;
  port?: number;
  receiptDelayMs?: number;
  /** After `delivered`, a WhatsApp message's `read`. */
  readDelayMs?: number;
  approvalDelayMs?: number;
  onCallbackError?: (error: unknown) => void;
}): Promise<RunningSimulator> {
  const accountSid = simulatorAccountSid(options.authToken);
  const api = new TwilioApi({
    accountSid,
    authToken: options.authToken,
    from: SIMULATOR_NUMBERS,
    anySubaccount: true,
    autoReceiptsAfterMs: options.receiptDelayMs ?? SIMULATOR_RECEIPT_DELAY_MS,
    readReceiptsAfterMs: options.readDelayMs ?? SIMULATOR_READ_DELAY_MS,
    templateApprovalAfterMs: options.approvalDelayMs ?? SIMULATOR_APPROVAL_DELAY_MS,
    price: { amount: '-0.00790', unit: 'USD' },
    onCallbackError: options.onCallbackError,
    inbound: { url: `${options.publicBaseUrl.replace(/\/+$/, '')}/providers/simulator/inbound`, number: SIMULATOR_NUMBER },
  });
  const url = await api.start(options.port ?? 0);
  return { url, accountSid, number: SIMULATOR_NUMBER, api, stop: () => api.stop() };
}

/** The Twilio settings that make the Twilio carrier send to this simulator (its Content API on the same port). */
export function simulatorSettings(simulator: RunningSimulator, authToken: string) {
  return {
    TWILIO_ACCOUNT_SID: simulator.accountSid,
    TWILIO_AUTH_TOKEN: authToken,
    TWILIO_FROM: simulator.number,
    TWILIO_API_URL: simulator.url,
    TWILIO_CONTENT_API_URL: simulator.url,
    TWILIO_MESSAGING_SERVICE_SID: undefined,
    TWILIO_API_KEY_SID: undefined,
    TWILIO_API_KEY_SECRET: undefined,
  };
}
