import type { Template } from '../../generated/prisma/client';
import { CHANNELS, MAX_MEDIA, type Channel } from '../../domain/channels';
import { MAX_POSTBACK_DATA, MAX_SUGGESTION_TEXT, MAX_SUGGESTIONS, type Suggestion } from '../../domain/rcs';
import type { StoredTemplate } from '../../db/messages';
import { namesNonPublicHost } from '../../net/public-address';
import { Invalid } from '../errors';
import { isBlank, RESOURCE_ID_PATTERN } from '../input/validation';
import { MAX_MEDIA_URL_LENGTH, MAX_VARIABLE_LENGTH } from './contract';

/*
 * The channel fields of a send (docs/messages.md, "Channels"): `channel`, `media` and a WhatsApp
 * `template`, checked after the recipient and before the text, whose need depends on them.
 */


/** The template a send names, as the accept checks need it, and as the message stores it. */
export interface RequestedTemplate {
  row: Pick<Template, 'pk' | 'id' | 'approval' | 'contentSid' | 'name' | 'language' | 'body' | 'variables'>;
  stored: StoredTemplate;
}

export interface ChannelFields {
  channel: Channel;
  media: { url: string }[];
  template: RequestedTemplate | null;
  /** RCS's suggested replies; empty for none (and on any other channel). */
  suggestions: Suggestion[];
}

const given = (value: unknown) => value !== undefined && value !== null;

function parseMedia(value: unknown, channel: Channel): { url: string }[] {
  if (!given(value)) return [];
  const limit = MAX_MEDIA[channel];
  if (!Array.isArray(value) || value.length > limit) throw new Invalid(`Invalid media: must be an array of at most ${limit} objects { "url" } for ${channel}`);
  return value.map((item, k) => {
    const url = (item as { url?: unknown } | null)?.url;
    if (typeof item !== 'object' || item === null || typeof url !== 'string' || url.length > MAX_MEDIA_URL_LENGTH || !isPublicHttps(url)) {
      throw new Invalid(`Invalid media[${k}].url: must be a public https URL of at most ${MAX_MEDIA_URL_LENGTH} characters`);
    }
    return { url };
  });
}

function isPublicHttps(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '' && !namesNonPublicHost(url);
  } catch {
    return false;
  }
}

/** `{ _id, variables: { name: value } }` against the caller's registered template: every variable it declares, no other. */
async function parseTemplate(value: unknown, findTemplate: (id: string) => Promise<RequestedTemplate['row'] | null>): Promise<RequestedTemplate> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Invalid('Invalid template: must be an object such as {"_id": "reminder", "variables": {"1": "Tuesday"}}');
  const { _id: id, variables } = value as Record<string, unknown>;
  if (typeof id !== 'string' || !RESOURCE_ID_PATTERN.test(id)) throw new Invalid('Invalid template._id: must be a template id string');
  const row = await findTemplate(id);
  if (!row) throw new Invalid(`Template ${id} not found`);
  if (given(variables) && (typeof variables !== 'object' || Array.isArray(variables))) throw new Invalid('Invalid template.variables: must be an object of variable names to values');
  const values = (variables ?? {}) as Record<string, unknown>;
  const missing = row.variables.filter((name) => !Object.hasOwn(values, name));
  if (missing.length > 0) throw new Invalid(`Invalid template.variables: missing ${missing.join(', ')}`);
  const unknown = Object.keys(values).filter((name) => !row.variables.includes(name));
  if (unknown.length > 0) throw new Invalid(`Invalid template.variables: unknown ${unknown.slice(0, 20).join(', ')}`);
  for (const name of row.variables) {
    const v = values[name];
    if (typeof v !== 'string' || isBlank(v) || v.length > MAX_VARIABLE_LENGTH) throw new Invalid(`Invalid template.variables.${name}: must be a non-empty string of at most ${MAX_VARIABLE_LENGTH} characters`);
  }
  const ref = row.contentSid !== null ? { contentSid: row.contentSid } : { name: row.name!, language: row.language! };
  return { row, stored: { _id: row.id, ref, variables: row.variables.map((name) => ({ name, value: values[name] as string })) } };
}

const INVALID_SUGGESTIONS = `Invalid suggestions: must be an array of at most ${MAX_SUGGESTIONS} objects { "text", "postback_data"? }`;

/** RCS's suggested replies: `[{ text, postback_data? }]`, each text 1–25 characters, distinct, each postback at most 200. */
export function parseSuggestions(value: unknown, channel: Channel): Suggestion[] {
  if (!given(value)) return [];
  if (channel !== 'rcs') throw new Invalid('Invalid suggestions: only an RCS message ("channel": "rcs") carries suggested replies');
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SUGGESTIONS) throw new Invalid(INVALID_SUGGESTIONS);
  const texts = new Set<string>();
  return value.map((item, k) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new Invalid(INVALID_SUGGESTIONS);
    const { text, postback_data: postback } = item as Record<string, unknown>;
    if (typeof text !== 'string' || isBlank(text) || [...text].length > MAX_SUGGESTION_TEXT) {
      throw new Invalid(`Invalid suggestions[${k}].text: must be a non-empty string of at most ${MAX_SUGGESTION_TEXT} characters`);
    }
    if (texts.has(text)) throw new Invalid(`Invalid suggestions[${k}].text: repeats another suggestion`);
    texts.add(text);
    if (!given(postback)) return { text };
    if (typeof postback !== 'string' || isBlank(postback) || postback.length > MAX_POSTBACK_DATA) {
      throw new Invalid(`Invalid suggestions[${k}].postback_data: must be a non-empty string of at most ${MAX_POSTBACK_DATA} characters`);
    }
    return { text, postback_data: postback };
  });
}

export async function parseChannelFields(fields: Record<string, unknown>, findTemplate: (id: string) => Promise<RequestedTemplate['row'] | null>): Promise<ChannelFields> {
  const channel = given(fields.channel) ? fields.channel : 'sms';
  if (typeof channel !== 'string' || !(CHANNELS as readonly string[]).includes(channel)) throw new Invalid('Invalid channel: must be "sms", "whatsapp" or "rcs"');
  const media = parseMedia(fields.media, channel as Channel);
  const suggestions = parseSuggestions(fields.suggestions, channel as Channel);
  if (!given(fields.template)) return { channel: channel as Channel, media, template: null, suggestions };
  if (channel !== 'whatsapp') throw new Invalid('Invalid template: only a WhatsApp message ("channel": "whatsapp") sends a template');
  return { channel, media, template: await parseTemplate(fields.template, findTemplate), suggestions };
}

/** The template's body with its values, what the message shows as its text; empty for a template registered without a body. */
export function renderTemplate(template: RequestedTemplate): string {
  const values = new Map(template.stored.variables.map((v) => [v.name, v.value]));
  return (template.row.body ?? '').replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (whole, name: string) => values.get(name) ?? whole);
}

/** What the fingerprint adds for the channel fields: nothing for a plain SMS, so older keys hash as before. */
export function channelFingerprint(fields: ChannelFields) {
  return {
    ...(fields.channel !== 'sms' && { channel: fields.channel }),
    ...(fields.media.length > 0 && { media: fields.media.map((m) => m.url) }),
    ...(fields.template && { template: { _id: fields.template.stored._id, variables: Object.fromEntries(fields.template.stored.variables.map((v) => [v.name, v.value])) } }),
    ...(fields.suggestions.length > 0 && { suggestions: fields.suggestions }),
  };
}
