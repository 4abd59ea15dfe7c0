/*
 * What the Telnyx fake accepts, as Telnyx documents it:
 * - `POST /v2/messages` (SMS, MMS): `to` (+E.164), `from` (+E.164) or `messaging_profile_id`, `text`
 *   (required for SMS), `media_urls` (MMS: 1 to 10 absolute https URLs, fetched by Telnyx at send time),
 *   `type` SMS | MMS, `webhook_url`, `use_profile_webhooks`.
 * - `POST /v2/messages/whatsapp`: `from` (a WhatsApp-enabled +E.164 number), `to`, `whatsapp_message`
 *   with a `type` and its object: `text: { body }`, `image` / `video` / `audio` / `document` `{ link,
 *   caption?, filename? }` (no caption on audio), `template: { name, language: { code, policy? },
 *   components?: [{ type: "body", parameters: [{ type: "text", text }] }] }`; `type: "WHATSAPP"`, `webhook_url`.
 * The first problem found is answered as Telnyx answers it: `{ errors: [{ code, title, detail, source }] }`.
 */

export interface TelnyxProblem {
  status: number;
  code: string;
  title: string;
  detail: string;
  pointer?: string;
}

export const E164 = /^\+[1-9]\d{1,14}$/;
/** The keywords Telnyx acts on by default (developers.telnyx.com, Advanced Opt-In/Out: default behavior). */
export const OPT_OUT_KEYWORDS = ['STOP', 'STOPALL', 'STOP ALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'];
export const OPT_IN_KEYWORDS = ['START', 'UNSTOP'];

/** Telnyx's error body. */
export function error(code: string, title: string, detail: string, pointer?: string) {
  return { errors: [{ code, title, detail, ...(pointer ? { source: { pointer } } : {}) }] };
}
const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/;
const LANGUAGE = /^[a-z]{2,3}(_[A-Z]{2})?$/;
const WHATSAPP_TYPES = ['text', 'image', 'video', 'audio', 'document', 'template'];
/** Telnyx's limit of files on one MMS. */
export const MAX_MEDIA_URLS = 10;

const isObject = (value: unknown): value is Record<string, any> => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

function httpsUrl(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 2000) return false;
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

const missing = (name: string, detail: string): TelnyxProblem => ({ status: 400, code: '10004', title: 'Missing required parameter', detail, pointer: `/${name}` });
const invalid = (name: string, detail: string): TelnyxProblem => ({ status: 400, code: '10015', title: 'Bad Request', detail, pointer: `/${name}` });
const badUrl = (name: string): TelnyxProblem => ({ status: 400, code: '10003', title: 'Invalid URL', detail: 'The URL provided was invalid, malformed, or too long.', pointer: `/${name}` });

/** An SMS or MMS body's problem beyond the common fields (the fake checks those itself), or undefined. */
export function messageProblem(body: Record<string, any>): TelnyxProblem | undefined {
  const { text, media_urls: media, type } = body;
  if (type !== undefined && type !== 'SMS' && type !== 'MMS') return invalid('type', 'The type must be SMS or MMS.');
  if (media !== undefined) {
    if (!Array.isArray(media) || media.length === 0) return invalid('media_urls', 'media_urls must be a non-empty array of URLs.');
    if (media.length > MAX_MEDIA_URLS) return invalid('media_urls', `At most ${MAX_MEDIA_URLS} media URLs.`);
    const bad = media.findIndex((url) => !httpsUrl(url));
    if (bad >= 0) return badUrl(`media_urls/${bad}`);
    if (type === 'SMS') return invalid('type', 'An SMS carries no media_urls.');
    if (text !== undefined && (typeof text !== 'string' || text.length === 0)) return invalid('text', 'The "text" parameter must be a non-empty string.');
    return undefined;
  }
  if (type === 'MMS') return missing('media_urls', 'The "media_urls" parameter is required for MMS.');
  if (typeof text !== 'string' || text.length === 0) return missing('text', 'The "text" parameter is required for SMS.');
  return undefined;
}

function templateProblem(template: unknown): TelnyxProblem | undefined {
  if (!isObject(template) || typeof template.name !== 'string' || !TEMPLATE_NAME.test(template.name)) return invalid('whatsapp_message/template/name', 'The template name as registered with Meta.');
  if (!isObject(template.language) || typeof template.language.code !== 'string' || !LANGUAGE.test(template.language.code)) return invalid('whatsapp_message/template/language/code', 'A template language such as en_US.');
  if (template.language.policy !== undefined && template.language.policy !== 'deterministic') return invalid('whatsapp_message/template/language/policy', 'The policy is deterministic.');
  if (template.components === undefined) return undefined;
  if (!Array.isArray(template.components)) return invalid('whatsapp_message/template/components', 'An array of components.');
  for (const component of template.components) {
    if (!isObject(component) || !['header', 'body', 'button'].includes(component.type)) return invalid('whatsapp_message/template/components', 'A component is a header, body or button.');
    const parameters = component.parameters ?? [];
    if (!Array.isArray(parameters) || !parameters.every((p: any) => isObject(p) && p.type === 'text' && typeof p.text === 'string' && p.text.length > 0)) {
      return invalid('whatsapp_message/template/components', 'Text parameters are { type: "text", text } with a non-empty text.');
    }
  }
  return undefined;
}

/** A WhatsApp request's problem, or undefined. */
export function whatsappProblem(body: unknown): TelnyxProblem | undefined {
  if (!isObject(body)) return invalid('', 'The request body must be a JSON object.');
  const { from, to, whatsapp_message: message, type, webhook_url: webhookUrl } = body;
  if (typeof from !== 'string') return missing('from', 'The "from" parameter is required: a WhatsApp-enabled number.');
  if (!E164.test(from)) return { status: 400, code: '10016', title: 'Phone number must be in +E.164 format', detail: 'The "from" parameter must be in +E.164 format.', pointer: '/from' };
  if (typeof to !== 'string') return missing('to', 'The "to" parameter is required.');
  if (!E164.test(to)) return { status: 400, code: '10016', title: 'Phone number must be in +E.164 format', detail: 'The "to" parameter must be in +E.164 format.', pointer: '/to' };
  if (type !== undefined && type !== 'WHATSAPP') return invalid('type', 'The type must be WHATSAPP.');
  if (webhookUrl !== undefined && (typeof webhookUrl !== 'string' || !/^https?:\/\/\S+$/.test(webhookUrl))) return badUrl('webhook_url');
  if (!isObject(message)) return missing('whatsapp_message', 'The "whatsapp_message" parameter is required.');
  const kind = message.type;
  if (!WHATSAPP_TYPES.includes(kind)) return invalid('whatsapp_message/type', `This fake serves ${WHATSAPP_TYPES.join(', ')}.`);
  const others = WHATSAPP_TYPES.filter((t) => t !== kind && message[t] !== undefined);
  if (others.length > 0) return invalid(`whatsapp_message/${others[0]}`, `A ${kind} message carries no ${others[0]}.`);
  const part = message[kind];
  if (kind === 'text') return isObject(part) && typeof part.body === 'string' && part.body.length > 0 && part.body.length <= 4096 ? undefined : invalid('whatsapp_message/text/body', 'The text body must be 1 to 4096 characters.');
  if (kind === 'template') return templateProblem(part);
  if (!isObject(part) || !httpsUrl(part.link)) return badUrl(`whatsapp_message/${kind}/link`);
  if (part.caption !== undefined && (kind === 'audio' || typeof part.caption !== 'string' || part.caption.length === 0 || part.caption.length > 1024)) {
    return invalid(`whatsapp_message/${kind}/caption`, kind === 'audio' ? 'An audio message takes no caption.' : 'A caption is 1 to 1024 characters.');
  }
  if (part.filename !== undefined && (kind !== 'document' || typeof part.filename !== 'string')) return invalid(`whatsapp_message/${kind}/filename`, 'Only a document takes a filename.');
  return undefined;
}
