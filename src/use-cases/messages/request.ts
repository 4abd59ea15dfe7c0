import { DELAY_FORMS, parseDelay, sendAtAfter, type Delay } from './delay';
import { Invalid, NotFound } from '../errors';
import { isBlank, normalisePhone, RESOURCE_ID_PATTERN } from '../input/validation';
import { isTimeZone, TIME_ZONE_RULE } from '../input/time-zone';
import { clockTime, windowOpening } from './send-window';
import { channelFingerprint, parseChannelFields, renderTemplate, type ChannelFields, type RequestedTemplate } from './channel-request';
import { parseSendAt } from './send-at';
import { fieldsOfSchema, refuseUnknownFields, type Fields } from '../input/known-fields';
import { MAX_NAME_LENGTH, MAX_TEXT_LENGTH, SendMessageRequest } from './contract';


export interface KnownClient {
  pk: string;
  id: string;
  phone: string | null;
  name: string | null;
  /** The zone a message's `send_window` is read in when it names none. */
  timezone: string | null;
}

/** A message's `send_window` as stored and shown: the caller's `from`, `to` and, when given, `timezone`. */
export interface SendWindow {
  from: string;
  to: string;
  timezone?: string;
}

/** The caller's request in canonical form: equal requests, however spelled, have equal fingerprints. */
export interface MessageFingerprint {
  message_type: 'text';
  client: string | null;
  client_phone: string | null;
  client_name: string | null;
  text_message: string;
  delay: Delay;
  /** The instant asked (ISO 8601, UTC), only when given, so that a request without one hashes as before. */
  send_at?: string;
  /** Only when given, so that a request without one hashes as it did before windows existed. */
  send_window?: SendWindow;
  /** Only when given, as send_window. */
  agent?: string;
  /** Only when not SMS, and when given (channelFingerprint). */
  channel?: string;
  media?: string[];
  template?: { _id: string; variables: Record<string, string> };
  suggestions?: { text: string; postback_data?: string }[];
}

/** One of the caller's agents, named by a message as its author (lead routing's first response). */
export interface KnownAgent {
  pk: string;
  id: string;
}

export interface MessageRequest {
  client: KnownClient | null;
  phone: string;
  name: string | null;
  text: string;
  sendAt: Date;
  sendWindow: SendWindow | null;
  /** When a message due outside its window goes out instead; null when `sendAt` is inside it (or no window). */
  deferredUntil: Date | null;
  /** The caller's agent the message answers for; null when it names none. */
  agent: KnownAgent | null;
  fingerprint: MessageFingerprint;
  /** `channel`, `media` and the WhatsApp `template` (docs/messages.md, "Channels"). */
  channel: ChannelFields['channel'];
  media: ChannelFields['media'];
  template: ChannelFields['template'];
  suggestions: ChannelFields['suggestions'];
}

/** Every field of a send, and of its nested objects (the contract's): any other is a 400 naming it. */
const MESSAGE_FIELDS = fieldsOfSchema(SendMessageRequest) as Fields;

const INVALID_PHONE = 'Invalid client_phone: must be an E.164 phone number such as +14155550123';

/** Absent, null and blank strings (white space or invisible characters only) all count as "not given". */
function given(value: unknown): boolean {
  return value !== undefined && value !== null && !(typeof value === 'string' && isBlank(value));
}

function characters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * The checks of the send-message request, in the order of the contract: message_type, client or
 * client_phone present, the client's ownership (404), the phone, text_message, client_name, delay,
 * send_at, send_window, agent; then a field it does not know (`Unknown field: {path}`), last, so that a
 * request the contract answers otherwise keeps its answer.
 * `findClient` returns the caller's client with that id, or null; `findAgent` the caller's agent.
 */
export async function parseMessageRequest(
  body: unknown,
  findClient: (id: string) => Promise<KnownClient | null>,
  now = new Date(),
  findAgent: (id: string) => Promise<KnownAgent | null> = async () => null,
  findTemplate: (id: string) => Promise<RequestedTemplate['row'] | null> = async () => null,
): Promise<MessageRequest> {
  const fields = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;

  if (fields.message_type !== 'text') throw new Invalid('Invalid message_type: must be "text"');

  const { client: clientField, client_phone: phoneField } = fields;
  if (!given(clientField) && !given(phoneField)) throw new Invalid('Missing client or client_phone');

  let client: KnownClient | null = null;
  if (given(clientField)) {
    if (typeof clientField !== 'string') throw new Invalid('Invalid client: must be a client id string');
    client = RESOURCE_ID_PATTERN.test(clientField) ? await findClient(clientField) : null;
    if (!client) throw new NotFound('Client not found');
  }

  let requestedPhone: string | null = null;
  if (given(phoneField)) {
    requestedPhone = typeof phoneField === 'string' ? (normalisePhone(phoneField) ?? null) : null;
    if (!requestedPhone) throw new Invalid(INVALID_PHONE);
  }
  const phone = requestedPhone ?? client?.phone ?? null;
  if (!phone) throw new Invalid(`Client ${client!.id} has no phone number: send client_phone`);

  const channel = await parseChannelFields(fields, findTemplate);
  const askedText = fields.text_message;
  if (askedText !== undefined && askedText !== null && typeof askedText !== 'string') throw new Invalid('Invalid text_message: must be a string');
  // A WhatsApp template needs no text of the caller's: the template's body, with its values, stands for it.
  const text = channel.template && (typeof askedText !== 'string' || isBlank(askedText)) ? renderTemplate(channel.template) : askedText;
  if (typeof text !== 'string' || (isBlank(text) && !channel.template)) throw new Invalid('Missing or empty text_message');
  if (characters(text) > MAX_TEXT_LENGTH) throw new Invalid(`Invalid text_message: at most ${MAX_TEXT_LENGTH} characters`);

  const nameField = fields.client_name;
  if (given(nameField) && (typeof nameField !== 'string' || characters(nameField) > MAX_NAME_LENGTH)) {
    throw new Invalid(`Invalid client_name: must be a string of at most ${MAX_NAME_LENGTH} characters`);
  }
  const requestedName = given(nameField) ? (nameField as string).trim() : null;

  const delay = parseDelay(fields.delay);
  const delayed = delay && sendAtAfter(delay, now);
  if (!delay || !delayed) throw new Invalid('Invalid delay', 'invalid-request', DELAY_FORMS);
  let sendAt = delayed;
  let askedSendAt: Date | null = null;
  if (given(fields.send_at)) {
    if (given(fields.delay)) throw new Invalid('Invalid send_at: give delay or send_at, not both');
    const at = parseSendAt(fields.send_at, now);
    askedSendAt = at.asked;
    sendAt = at.due;
  }

  const window = given(fields.send_window) ? parseSendWindow(fields.send_window, client) : null;

  let agent: KnownAgent | null = null;
  if (given(fields.agent)) {
    if (typeof fields.agent !== 'string') throw new Invalid('Invalid agent: must be an agent id string');
    agent = RESOURCE_ID_PATTERN.test(fields.agent) ? await findAgent(fields.agent) : null;
    if (!agent) throw new Invalid(`Agent ${fields.agent} not found or not authorized`);
  }
  refuseUnknownFields(fields, MESSAGE_FIELDS);

  return {
    client,
    phone,
    name: requestedName ?? client?.name ?? null,
    text,
    sendAt,
    sendWindow: window?.given ?? null,
    deferredUntil: window ? windowOpening(sendAt, window.daily, window.zone) : null,
    agent,
    ...channel,
    fingerprint: {
      message_type: 'text',
      client: client?.id ?? null,
      client_phone: requestedPhone,
      client_name: requestedName,
      text_message: typeof askedText === 'string' ? askedText : '',
      delay,
      ...(askedSendAt && { send_at: askedSendAt.toISOString() }),
      ...(window && { send_window: window.given }),
      ...(agent && { agent: agent.id }),
      ...channelFingerprint(channel),
    },
  };
}

const INVALID_WINDOW = 'Invalid send_window: must be an object such as {"from": "08:00", "to": "21:00", "timezone": "America/New_York"}';
const invalidClock = (field: string) => new Invalid(`Invalid send_window.${field}: must be a time of day HH:MM, 00:00 to 23:59`);

/**
 * `{ from, to, timezone? }`: two wall-clock times (`from` inclusive, `to` exclusive; `from` after `to`
 * spans midnight) read in the window's zone, else the client's.
 */
function parseSendWindow(value: unknown, client: KnownClient | null) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Invalid(INVALID_WINDOW);
  const { from, to, timezone } = value as Record<string, unknown>;
  const daily = { from: clockTime(from), to: clockTime(to) };
  if (daily.from === undefined) throw invalidClock('from');
  if (daily.to === undefined) throw invalidClock('to');
  if (daily.from === daily.to) throw new Invalid('Invalid send_window: from and to must differ');
  const named = given(timezone);
  if (named && (typeof timezone !== 'string' || !isTimeZone(timezone))) throw new Invalid(`Invalid send_window.timezone: ${TIME_ZONE_RULE}`);
  const zone = named ? (timezone as string) : client?.timezone;
  if (!zone) {
    throw new Invalid(client ? `Client ${client.id} has no timezone: send send_window.timezone` : 'Missing send_window.timezone: a message without a client must name it');
  }
  const stored: SendWindow = { from: from as string, to: to as string, ...(named && { timezone: timezone as string }) };
  return { given: stored, daily: { from: daily.from, to: daily.to }, zone };
}
