import { MAX_MEDIA } from '../../domain/channels';
import { ApiError, safeJson } from './api-error';
import type { SimulatedChannel } from './whatsapp';
import { SIMULATED_REGISTRATIONS, type SimulatedRegistration } from './a2p-api';

/*
 * The simulator's own doors (not Twilio's), each behind the account's Basic credentials:
 *
 * - `POST /simulator/sms` — a person's message to one of its numbers (`npm run sms`), JSON
 *   `{ "from", "text"?, "to"?, "channel"?: "sms" | "whatsapp" | "rcs", "media"?: [{ "content_type", "data" }],
 *   "tap"? }` (`data` the file's bytes in base64; `text` may be empty when media come). Posted, signed, to the
 *   stack's inbound route as Twilio posts an SMS, MMS, WhatsApp or RCS message. On RCS the message goes to
 *   the RCS sender that last wrote to the person from `to` (./rcs.ts); `tap` names one of the suggested
 *   replies of that RCS message, by its text, and the person taps it (`text` is then the reply's).
 * - `POST /simulator/whatsapp-window` — sets when the client last wrote on WhatsApp to our number, JSON
 *   `{ "from", "to"?, "last_inbound_at": ISO date | null }` (a past date or null closes the window).
 * - `POST /simulator/registration` — sets a number's A2P registration (a2p-api.ts), JSON
 *   `{ "number", "status": "approved" | "pending" | "rejected" | "unregistered" }`: its 10DLC campaign, or
 *   its toll-free verification, as the Messaging API then answers it.
 */

const E164 = /^\+[1-9]\d{1,14}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const CONTENT_TYPE = /^[a-z]+\/[a-z0-9.+-]+$/i;
/** What a person's message may carry in all: an MMS 5 MB, a WhatsApp message 16 MB (Twilio's limits). */
const MAX_MEDIA_BYTES: Readonly<Record<SimulatedChannel, number>> = { sms: 5 * 1024 * 1024, whatsapp: 16 * 1024 * 1024, rcs: 5 * 1024 * 1024 };

export interface InboundTrigger {
  from: string;
  to: string;
  text: string;
  channel: SimulatedChannel;
  media: { contentType: string; data: Buffer }[];
  /** RCS: the suggested reply tapped, by its text. */
  tap?: string;
}

function numbers(input: { from?: unknown; to?: unknown }, ours: readonly string[] | undefined, defaultTo: string): { from: string; to: string } {
  if (typeof input.from !== 'string' || !E164.test(input.from)) throw new ApiError(400, 21211, '`from` must be a phone number in E.164 (+14155550100)');
  if (input.to !== undefined && (typeof input.to !== 'string' || !E164.test(input.to))) throw new ApiError(400, 21211, '`to` must be a phone number in E.164 (+15005550006)');
  const to = (input.to as string | undefined) ?? defaultTo;
  if (ours && !ours.includes(to)) throw new ApiError(400, 21606, `${to} is not one of the simulator's numbers (${ours.join(', ')})`);
  return { from: input.from, to };
}

export function parseInboundTrigger(raw: string, ours: readonly string[] | undefined, defaultTo: string): InboundTrigger {
  const input = safeJson(raw) as { from?: unknown; to?: unknown; text?: unknown; channel?: unknown; media?: unknown; tap?: unknown } | null;
  if (!input || typeof input !== 'object') throw new ApiError(400, 20001, 'The body must be a JSON object');
  const { from, to } = numbers(input, ours, defaultTo);
  const channel = input.channel ?? 'sms';
  if (channel !== 'sms' && channel !== 'whatsapp' && channel !== 'rcs') throw new ApiError(400, 20001, '`channel` must be sms, whatsapp or rcs');
  if (input.tap !== undefined && (channel !== 'rcs' || typeof input.tap !== 'string' || input.tap === '')) throw new ApiError(400, 20001, '`tap` names a suggested reply, on rcs');
  const tap = input.tap as string | undefined;
  const given = input.media ?? [];
  if (!Array.isArray(given)) throw new ApiError(400, 21620, '`media` must be a list of { content_type, data }');
  if (given.length > MAX_MEDIA[channel]) throw new ApiError(400, 21623, `A ${channel === 'sms' ? 'text' : 'WhatsApp message'} carries at most ${MAX_MEDIA[channel]} media`);
  const media = given.map((file: { content_type?: unknown; data?: unknown } | null) => {
    if (typeof file?.content_type !== 'string' || !CONTENT_TYPE.test(file.content_type)) throw new ApiError(400, 21620, 'Each media needs a content_type such as image/jpeg');
    if (typeof file.data !== 'string' || !BASE64.test(file.data)) throw new ApiError(400, 21620, "Each media needs its bytes in base64 as `data`");
    return { contentType: file.content_type.toLowerCase(), data: Buffer.from(file.data, 'base64') };
  });
  if (media.reduce((total, file) => total + file.data.length, 0) > MAX_MEDIA_BYTES[channel]) throw new ApiError(400, 11751, `The media exceed ${MAX_MEDIA_BYTES[channel] / 1024 / 1024} MB`);
  if (input.text !== undefined && typeof input.text !== 'string') throw new ApiError(400, 21602, '`text` must be a string');
  const text = (input.text as string | undefined) ?? '';
  if (!text && media.length === 0 && !tap) throw new ApiError(400, 21602, '`text` is required (or media)');
  return { from, to, text: tap ?? text, channel, media, ...(tap && { tap }) };
}

export function parseWindowTrigger(raw: string, ours: readonly string[] | undefined, defaultTo: string): { from: string; to: string; lastInboundAt: Date | null } {
  const input = safeJson(raw) as { from?: unknown; to?: unknown; last_inbound_at?: unknown } | null;
  if (!input || typeof input !== 'object') throw new ApiError(400, 20001, 'The body must be a JSON object');
  const { from, to } = numbers(input, ours, defaultTo);
  const at = input.last_inbound_at;
  if (at === null) return { from, to, lastInboundAt: null };
  const date = typeof at === 'string' ? new Date(at) : undefined;
  if (!date || Number.isNaN(date.getTime()) || date.getTime() > Date.now()) throw new ApiError(400, 20001, '`last_inbound_at` must be a past ISO date, or null');
  return { from, to, lastInboundAt: date };
}

export function parseRegistrationTrigger(raw: string): { number: string; status: SimulatedRegistration } {
  const input = safeJson(raw) as { number?: unknown; status?: unknown } | null;
  if (!input || typeof input !== 'object') throw new ApiError(400, 20001, 'The body must be a JSON object');
  if (typeof input.number !== 'string' || !E164.test(input.number)) throw new ApiError(400, 21211, '`number` must be a phone number in E.164 (+15005550001)');
  if (!SIMULATED_REGISTRATIONS.includes(input.status as SimulatedRegistration)) throw new ApiError(400, 20001, `\`status\` must be one of ${SIMULATED_REGISTRATIONS.join(', ')}`);
  return { number: input.number, status: input.status as SimulatedRegistration };
}
