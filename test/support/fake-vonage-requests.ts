/*
 * What the Vonage fake accepts on `POST /v1/messages`, as the Messages API documents each channel
 * (developer.vonage.com/en/api/messages): the channel and message type go together, each type carries its
 * own object (`image: { url, caption? }`, …), files are absolute https URLs, and a WhatsApp template is
 * `template: { name, parameters: [strings] }` with `whatsapp: { policy: "deterministic", locale }`.
 * RCS (`channel: "rcs"`, `from` the RCS agent's sender id): `text` (at most 3,072 characters, with
 * `suggestions: [{ type: "reply", text (≤ 25), postback_data (≤ 2,048) }]`, at most 11), `image` /
 * `video` / `file` `{ url }`, or `custom` (RBM's own `contentMessage`, sent untouched); its `failover`
 * an array of whole messages of other channels, each checked as a message of its own.
 * The first problem found is answered as Vonage answers invalid parameters (422, 1020, `invalid_parameters`).
 */

export interface InvalidParameter {
  name: string;
  reason: string;
}

const MSISDN = /^[1-9]\d{6,14}$/;
const SENDER = /^([1-9]\d{6,14}|[A-Za-z0-9 ]{1,11})$/;
/** WhatsApp template names: lowercase letters, digits and underscores (Meta's rule). */
const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/;
/** WhatsApp's template locales: `en`, `en_US`, `pt_BR`, … */
const LOCALE = /^[a-z]{2,3}(_[A-Z]{2})?$/;

/** The message types each channel takes, and which of them carry a file. */
const TYPES: Record<string, readonly string[]> = {
  sms: ['text'],
  mms: ['text', 'image', 'video', 'audio', 'vcard', 'file', 'content'],
  whatsapp: ['text', 'image', 'video', 'audio', 'file', 'template'],
  rcs: ['text', 'image', 'video', 'file', 'custom'],
};
/** An RCS agent's sender id (Vonage's RCS `from`). */
const RCS_SENDER = /^[A-Za-z0-9_-]{1,100}$/;
const FILE_TYPES = ['image', 'video', 'audio', 'vcard', 'file'];
/** Longest text and caption per channel (SMS: the fake's own bound; WhatsApp: Meta's 4096 and 1024; MMS: 2000 for a caption). */
const TEXT_MAX: Record<string, number> = { sms: 1000, mms: 5000, whatsapp: 4096, rcs: 3072 };
const CAPTION_MAX: Record<string, number> = { mms: 2000, whatsapp: 1024 };

const isObject = (value: unknown): value is Record<string, any> => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

function httpsUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

function checkFile(channel: string, type: string, file: unknown, name: string): InvalidParameter | undefined {
  if (!isObject(file)) return { name, reason: `A ${type} message needs a ${type} object` };
  if (!httpsUrl(file.url)) return { name: `${name}.url`, reason: 'Must be an absolute https URL' };
  if (file.caption !== undefined) {
    if (channel === 'whatsapp' && type === 'audio') return { name: `${name}.caption`, reason: 'A WhatsApp audio message takes no caption' };
    if (typeof file.caption !== 'string' || file.caption.length === 0 || file.caption.length > CAPTION_MAX[channel]!) return { name: `${name}.caption`, reason: `1 to ${CAPTION_MAX[channel]} characters` };
  }
  if (file.name !== undefined && (channel !== 'whatsapp' || type !== 'file' || typeof file.name !== 'string')) return { name: `${name}.name`, reason: 'Only a WhatsApp file takes a name' };
  return undefined;
}

function checkTemplate(body: Record<string, any>): InvalidParameter | undefined {
  const { template, whatsapp } = body;
  if (!isObject(template) || typeof template.name !== 'string' || !TEMPLATE_NAME.test(template.name)) return { name: 'template.name', reason: 'The name of an approved template (lowercase, digits, underscores)' };
  if (template.parameters !== undefined && (!Array.isArray(template.parameters) || !template.parameters.every((p: unknown) => typeof p === 'string' && p.length > 0))) {
    return { name: 'template.parameters', reason: 'An array of non-empty strings, in the template order' };
  }
  if (!isObject(whatsapp) || whatsapp.policy !== 'deterministic') return { name: 'whatsapp.policy', reason: 'Must be deterministic' };
  if (typeof whatsapp.locale !== 'string' || !LOCALE.test(whatsapp.locale)) return { name: 'whatsapp.locale', reason: 'A WhatsApp language code such as en_US' };
  if (body.text !== undefined) return { name: 'text', reason: 'A template message takes no text' };
  return undefined;
}

function checkContent(content: unknown): InvalidParameter | undefined {
  if (!Array.isArray(content) || content.length === 0) return { name: 'content', reason: 'A content message needs one or more attachments' };
  for (const [i, item] of content.entries()) {
    if (!isObject(item) || !FILE_TYPES.includes(item.type)) return { name: `content[${i}].type`, reason: `One of ${FILE_TYPES.join(', ')}` };
    const problem = checkFile('mms', item.type, item, `content[${i}]`);
    if (problem) return problem;
  }
  return undefined;
}

function checkSuggestions(suggestions: unknown): InvalidParameter | undefined {
  if (suggestions === undefined) return undefined;
  if (!Array.isArray(suggestions) || suggestions.length === 0 || suggestions.length > 11) return { name: 'suggestions', reason: '1 to 11 suggestions' };
  for (const [i, s] of suggestions.entries()) {
    if (!isObject(s) || s.type !== 'reply') return { name: `suggestions[${i}].type`, reason: 'This fake serves reply suggestions' };
    if (typeof s.text !== 'string' || s.text.length === 0 || [...s.text].length > 25) return { name: `suggestions[${i}].text`, reason: '1 to 25 characters' };
    if (typeof s.postback_data !== 'string' || s.postback_data.length === 0 || s.postback_data.length > 2048) return { name: `suggestions[${i}].postback_data`, reason: '1 to 2048 characters' };
  }
  return undefined;
}

/** RCS's own checks: suggestions only on text, a custom message's `contentMessage`, and each failover message as a message of its own. */
function checkRcs(body: Record<string, any>): InvalidParameter | undefined {
  if (body.suggestions !== undefined && body.message_type !== 'text') return { name: 'suggestions', reason: 'Only an RCS text message takes suggestions' };
  const problem = checkSuggestions(body.suggestions);
  if (problem) return problem;
  if (body.message_type === 'custom' && !isObject(body.custom?.contentMessage)) return { name: 'custom', reason: "RBM's contentMessage object" };
  if (body.failover === undefined) return undefined;
  if (!Array.isArray(body.failover) || body.failover.length === 0) return { name: 'failover', reason: 'An array of one or more messages' };
  for (const [i, message] of body.failover.entries()) {
    if (isObject(message) && (message.channel === 'rcs' || message.failover !== undefined)) return { name: `failover[${i}].channel`, reason: 'A failover message is of another channel, without a failover of its own' };
    const invalid = invalidVonageParameter(message);
    if (invalid) return { name: `failover[${i}].${invalid.name}`, reason: invalid.reason };
  }
  return undefined;
}

/** The first parameter Vonage would refuse, or undefined for a request it takes. */
export function invalidVonageParameter(body: unknown): InvalidParameter | undefined {
  if (!isObject(body)) return { name: 'body', reason: 'The request body must be a JSON object' };
  const { message_type: type, channel, to, from, text, client_ref: clientRef, webhook_url: webhookUrl } = body;
  if (typeof channel !== 'string' || !TYPES[channel]) return { name: 'channel', reason: 'This fake serves the sms, mms, whatsapp and rcs channels' };
  if (typeof type !== 'string' || !TYPES[channel]!.includes(type)) return { name: 'message_type', reason: `The ${channel} channel takes ${TYPES[channel]!.join(', ')}` };
  if (typeof to !== 'string' || !MSISDN.test(to)) return { name: 'to', reason: "Invalid 'to' parameter: E.164 without a leading + or 00" };
  if (typeof from !== 'string' || !(channel === 'sms' ? SENDER : channel === 'rcs' ? RCS_SENDER : MSISDN).test(from)) return { name: 'from', reason: "Invalid 'from' parameter" };
  if (body.failover !== undefined && channel !== 'rcs') return { name: 'failover', reason: 'This fake serves failover from RCS' };
  if (channel === 'rcs') {
    const problem = checkRcs(body);
    if (problem) return problem;
  }
  if (clientRef !== undefined && (typeof clientRef !== 'string' || clientRef.length > 100)) return { name: 'client_ref', reason: 'At most 100 characters' };
  if (webhookUrl !== undefined && (typeof webhookUrl !== 'string' || !/^https?:\/\/\S+$/.test(webhookUrl))) return { name: 'webhook_url', reason: 'Must be a URL' };
  if (type === 'text') {
    if (typeof text !== 'string' || text.length === 0 || text.length > TEXT_MAX[channel]!) return { name: 'text', reason: `The text must be 1 to ${TEXT_MAX[channel]} characters` };
    return undefined;
  }
  if (text !== undefined) return { name: 'text', reason: `A ${type} message carries its words as a caption, not text` };
  if (type === 'custom') return undefined;
  if (type === 'template') return checkTemplate(body);
  if (type === 'content') return checkContent(body.content);
  return checkFile(channel, type, body[type], type);
}
