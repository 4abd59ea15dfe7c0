import { ApiError } from './api-error';
import type { ApprovalStatus, ContentStore } from './content-api';
import { addressOf, type SimulatedChannel } from './whatsapp';

/*
 * A `POST /Accounts/{sid}/Messages.json` form checked as Twilio checks it: `To`; `From` (one of the
 * account's numbers, `whatsapp:`-prefixed for WhatsApp, on the same channel as `To`) or
 * `MessagingServiceSid`; then `ContentSid` (+ `ContentVariables`, rendered from the content), or `Body`
 * and/or up to 10 `MediaUrl` (absolute URLs); `StatusCallback` an absolute URL.
 */

const E164 = /^\+[1-9]\d{1,14}$/;
const MAX_BODY = 1600;
const MAX_MEDIA_URLS = 10;

export interface SendRequest {
  channel: SimulatedChannel;
  /** `To` and `From` as given (prefixed for WhatsApp), and their numbers. */
  to: string;
  toNumber: string;
  from: string | null;
  service: string | null;
  /** RCS's SMS fallback sender (`FallbackFrom`, with a Messaging Service only). */
  fallbackFrom: string | null;
  /** What the message says: `Body`, or the content rendered with its variables. */
  body: string;
  mediaUrls: string[];
  content: { sid: string; approval: ApprovalStatus; types?: Record<string, unknown> } | null;
  statusCallback?: string;
}

export interface SendContext {
  /** The account's numbers (undefined: any). */
  numbers?: readonly string[];
  messagingServiceSids?: readonly string[];
  contents: ContentStore;
  /** Twilio's magic "To" numbers and what each is refused with. */
  magic: Readonly<Record<string, { code: number; message: string }>>;
}

function isAbsoluteUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export function parseSendRequest(form: URLSearchParams, context: SendContext): SendRequest {
  const to = form.get('To');
  const from = form.get('From');
  const service = form.get('MessagingServiceSid');
  const statusCallback = form.get('StatusCallback') ?? undefined;
  if (!to) throw new ApiError(400, 21604, "A 'To' phone number is required.");
  if (!from && !service) throw new ApiError(400, 21603, "A 'From' or 'MessagingServiceSid' parameter is required to send a message");
  if (from && service) throw new ApiError(400, 21603, "Send either 'From' or 'MessagingServiceSid', not both");
  const recipient = addressOf(to);
  const sender = from ? addressOf(from) : undefined;
  if (sender && sender.channel !== recipient.channel) throw new ApiError(400, 21910, 'Invalid From and To pair. From and To should be of the same channel');
  if (sender && context.numbers && !context.numbers.includes(sender.number)) {
    if (sender.channel === 'whatsapp') throw new ApiError(400, 63007, `Twilio could not find a Channel with the specified From address: ${from}`);
    throw new ApiError(400, 21606, `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.`);
  }
  if (service && (!/^MG[0-9a-f]{32}$/.test(service) || (context.messagingServiceSids && !context.messagingServiceSids.includes(service)))) {
    throw new ApiError(400, 21701, `The Messaging Service Sid ${service} is invalid.`);
  }
  const fallbackFrom = form.get('FallbackFrom');
  if (fallbackFrom !== null && !service) throw new ApiError(400, 21666, "'FallbackFrom' requires MessagingServiceSid");
  if (fallbackFrom !== null && (recipient.channel !== 'sms' || !E164.test(fallbackFrom) || (context.numbers && !context.numbers.includes(fallbackFrom)))) {
    throw new ApiError(400, 21606, `The FallbackFrom phone number ${fallbackFrom} is not a valid, SMS-capable phone number for your account.`);
  }
  const contentSid = form.get('ContentSid');
  const mediaUrls = form.getAll('MediaUrl');
  let body = form.get('Body') ?? '';
  let content: SendRequest['content'] = null;
  if (contentSid) {
    const rendered = context.contents.render(contentSid, form.get('ContentVariables') ?? undefined);
    body = rendered.body;
    content = { sid: contentSid, approval: rendered.approval, types: context.contents.typesOf(contentSid) };
  } else {
    if (!body && mediaUrls.length === 0) throw new ApiError(400, 21602, 'Message body is required.');
    if (body.length > MAX_BODY) throw new ApiError(400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
    if (mediaUrls.length > MAX_MEDIA_URLS) throw new ApiError(400, 21623, `The number of media files exceeds the allowed limit of ${MAX_MEDIA_URLS}.`);
    if (mediaUrls.some((url) => !isAbsoluteUrl(url))) throw new ApiError(400, 21620, 'Media urls must be absolute http or https URLs.');
  }
  const magic = context.magic[recipient.number];
  if (magic) throw new ApiError(400, magic.code, magic.message);
  if (!E164.test(recipient.number)) throw new ApiError(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
  if (statusCallback !== undefined && !/^https?:\/\/[^\s/]+/.test(statusCallback)) throw new ApiError(400, 21609, 'The StatusCallback URL is not valid.');
  return { channel: recipient.channel, to, toNumber: recipient.number, from, service, fallbackFrom, body, mediaUrls: content ? [] : mediaUrls, content, statusCallback };
}
