import { randomUUID } from 'node:crypto';
import type { FakeMessage } from './fake-telnyx-payloads';
import { E164, MAX_MEDIA_URLS, type TelnyxProblem } from './fake-telnyx-requests';

/*
 * RCS as the Telnyx fake takes it, as Telnyx documents `POST /v2/messages/rcs`: `agent_id`, `to`
 * (+E.164), `messaging_profile_id`, `type: "RCS"`, `agent_message.content_message` with exactly one of
 * `text` (at most 3,072 characters), `rich_card` (a `standalone_card` whose `card_content` has a
 * `title`, `description` or `media.content_info.file_url`) or `content_info`; its `suggestions` (at most
 * 11, each one `reply` or `action` with `text` of at most 25 characters and `postback_data` of at most
 * 2,048); `sms_fallback { from, text }` or `mms_fallback { from, media_urls, text? }`; `webhook_url`.
 * A handset takes RCS unless the fake was told it does not (FakeTelnyx.rcsIncapable): then the fallback
 * goes, and the message's receipts say `type: "SMS"` (or `MMS`) from the fallback number.
 */

const isObject = (value: unknown): value is Record<string, any> => Boolean(value) && typeof value === 'object' && !Array.isArray(value);
const invalid = (pointer: string, detail: string): TelnyxProblem => ({ status: 400, code: '10015', title: 'Bad Request', detail, pointer: `/${pointer}` });
const missing = (pointer: string, detail: string): TelnyxProblem => ({ status: 400, code: '10004', title: 'Missing required parameter', detail, pointer: `/${pointer}` });
const https = (value: unknown) => typeof value === 'string' && /^https:\/\/\S{1,2000}$/.test(value);

function suggestionsProblem(suggestions: unknown, at: string): TelnyxProblem | undefined {
  if (suggestions === undefined) return undefined;
  if (!Array.isArray(suggestions) || suggestions.length === 0 || suggestions.length > 11) return invalid(at, 'suggestions: 1 to 11 suggested replies or actions.');
  for (const [k, suggestion] of suggestions.entries()) {
    const chip = isObject(suggestion) ? (suggestion.reply ?? suggestion.action) : undefined;
    if (!isObject(chip) || (suggestion.reply && suggestion.action)) return invalid(`${at}/${k}`, 'A suggestion is one reply or one action.');
    if (typeof chip.text !== 'string' || chip.text.length === 0 || [...chip.text].length > 25) return invalid(`${at}/${k}/text`, 'A suggestion text is 1 to 25 characters.');
    if (typeof chip.postback_data !== 'string' || chip.postback_data.length === 0 || chip.postback_data.length > 2048) return invalid(`${at}/${k}/postback_data`, 'postback_data is 1 to 2048 characters.');
  }
  return undefined;
}

function contentProblem(content: unknown): TelnyxProblem | undefined {
  const at = 'agent_message/content_message';
  if (!isObject(content)) return missing(at, 'agent_message.content_message is required.');
  const kinds = ['text', 'rich_card', 'content_info'].filter((kind) => content[kind] !== undefined);
  if (kinds.length !== 1) return invalid(at, 'A content message has exactly one of text, rich_card, content_info.');
  if (kinds[0] === 'text' && (typeof content.text !== 'string' || content.text.length === 0 || content.text.length > 3072)) return invalid(`${at}/text`, 'The text is 1 to 3072 characters.');
  if (kinds[0] === 'content_info' && !https(content.content_info?.file_url)) return invalid(`${at}/content_info/file_url`, 'A public https file_url.');
  if (kinds[0] === 'rich_card') {
    const card = content.rich_card?.standalone_card;
    if (!isObject(card) || !isObject(card.card_content)) return invalid(`${at}/rich_card`, 'This fake serves a standalone_card with its card_content.');
    if (!['VERTICAL', 'HORIZONTAL'].includes(card.card_orientation)) return invalid(`${at}/rich_card/standalone_card/card_orientation`, 'VERTICAL or HORIZONTAL.');
    const { title, description, media, suggestions } = card.card_content;
    if (title === undefined && description === undefined && media === undefined) return invalid(`${at}/rich_card/standalone_card/card_content`, 'A card has a title, a description or a medium.');
    if (media !== undefined && !https(media?.content_info?.file_url)) return invalid(`${at}/rich_card/standalone_card/card_content/media/content_info/file_url`, 'A public https file_url.');
    const problem = suggestionsProblem(suggestions, `${at}/rich_card/standalone_card/card_content/suggestions`);
    if (problem) return problem;
  }
  return suggestionsProblem(content.suggestions, `${at}/suggestions`);
}

function fallbackProblem(body: Record<string, any>): TelnyxProblem | undefined {
  const { sms_fallback: sms, mms_fallback: mms } = body;
  if (sms !== undefined && mms !== undefined) return invalid('sms_fallback', 'Either sms_fallback or mms_fallback.');
  if (sms !== undefined) {
    if (!isObject(sms) || typeof sms.from !== 'string' || !E164.test(sms.from)) return invalid('sms_fallback/from', 'The fallback sender must be in +E.164 format.');
    if (typeof sms.text !== 'string' || sms.text.length === 0 || sms.text.length > 3072) return invalid('sms_fallback/text', 'The fallback text is 1 to 3072 characters.');
  }
  if (mms !== undefined) {
    if (!isObject(mms) || typeof mms.from !== 'string' || !E164.test(mms.from)) return invalid('mms_fallback/from', 'The fallback sender must be in +E.164 format.');
    if (!Array.isArray(mms.media_urls) || mms.media_urls.length === 0 || mms.media_urls.length > MAX_MEDIA_URLS || !mms.media_urls.every(https)) return invalid('mms_fallback/media_urls', 'One to ten https media URLs.');
  }
  return undefined;
}

/** An RCS request's problem, or undefined; `profileId` and `agents` are the account's. */
export function rcsProblem(body: unknown, profileId: string, agents: ReadonlySet<string>): TelnyxProblem | undefined {
  if (!isObject(body)) return invalid('', 'The request body must be a JSON object.');
  const { agent_id: agent, to, messaging_profile_id: profile, type, webhook_url: webhookUrl } = body;
  if (typeof agent !== 'string' || agent.length === 0) return missing('agent_id', 'The "agent_id" parameter is required.');
  if (!agents.has(agent)) return { status: 400, code: '10006', title: 'Invalid ID', detail: 'The RCS agent is not one of yours.', pointer: '/agent_id' };
  if (typeof to !== 'string' || !E164.test(to)) return { status: 400, code: '10016', title: 'Phone number must be in +E.164 format', detail: 'The "to" parameter must be in +E.164 format.', pointer: '/to' };
  if (typeof profile !== 'string') return missing('messaging_profile_id', 'The "messaging_profile_id" parameter is required.');
  if (profile !== profileId) return { status: 400, code: '10006', title: 'Invalid ID', detail: 'The messaging profile is not one of yours.', pointer: '/messaging_profile_id' };
  if (type !== undefined && type !== 'RCS') return invalid('type', 'The type must be RCS.');
  if (webhookUrl !== undefined && (typeof webhookUrl !== 'string' || !/^https?:\/\/\S+$/.test(webhookUrl))) return { status: 400, code: '10003', title: 'Invalid URL', detail: 'The URL provided was invalid, malformed, or too long.', pointer: '/webhook_url' };
  if (!isObject(body.agent_message)) return missing('agent_message', 'The "agent_message" parameter is required.');
  return contentProblem(body.agent_message.content_message) ?? fallbackProblem(body);
}

/** The RCS message Telnyx took; on an incapable handset, the fallback that went instead (`type` SMS/MMS, from the fallback number). */
export function rcsMessageOf(body: Record<string, any>, capable: boolean): FakeMessage {
  const content = body.agent_message.content_message;
  const card = content.rich_card?.standalone_card?.card_content;
  const fallback = body.sms_fallback ?? body.mms_fallback;
  const base = { id: randomUUID(), to: body.to, messaging_profile_id: body.messaging_profile_id, webhook_url: body.webhook_url ?? null, received_at: new Date().toISOString(), status: 'queued', finalized: false, cost: null };
  if (!capable && fallback) return { ...base, type: body.mms_fallback ? 'MMS' : 'SMS', from: fallback.from, text: fallback.text ?? '', media: fallback.media_urls ?? [], rcs: { agentId: body.agent_id, fellBack: true } };
  const media = card?.media?.content_info?.file_url ?? content.content_info?.file_url;
  return { ...base, type: 'RCS', from: body.agent_id, text: content.text ?? card?.description ?? '', media: media ? [media] : [], rcs: { agentId: body.agent_id, fellBack: false, content } };
}

/** A client's RCS message as `message.received` carries it: typed text, or a tapped suggestion's `suggestion_response`. */
export function rcsInboundPayload(profileId: string, url: string, from: string, agentId: string, content: { text: string } | { tap: { text: string; postback_data: string } }): Record<string, unknown> & { id: string } {
  const body = 'tap' in content ? { suggestion_response: content.tap } : { text: content.text };
  return {
    record_type: 'message',
    direction: 'inbound',
    id: randomUUID(),
    type: 'RCS',
    messaging_profile_id: profileId,
    from: { phone_number: from, carrier: 'T-Mobile USA', line_type: 'Wireless' },
    to: [{ agent_id: agentId, status: 'webhook_delivered' }],
    body,
    received_at: new Date().toISOString(),
    webhook_url: url,
    errors: [],
  };
}
