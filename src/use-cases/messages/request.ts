import { parseDelay, sendAtAfter, type Delay } from './delay';
import { Invalid, NotFound } from '../errors';
import { isBlank, normalisePhone, RESOURCE_ID_PATTERN } from '../input/validation';

export const MAX_TEXT_LENGTH = 4096;
export const MAX_NAME_LENGTH = 200;

export interface KnownClient {
  pk: string;
  id: string;
  phone: string | null;
  name: string | null;
}

/** The caller's request in canonical form: equal requests, however spelled, have equal fingerprints. */
export interface MessageFingerprint {
  message_type: 'text';
  client: string | null;
  client_phone: string | null;
  client_name: string | null;
  text_message: string;
  delay: Delay;
}

export interface MessageRequest {
  client: KnownClient | null;
  phone: string;
  name: string | null;
  text: string;
  sendAt: Date;
  fingerprint: MessageFingerprint;
}

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
 * client_phone present, the client's ownership (404), the phone, text_message, client_name, delay.
 * `findClient` returns the caller's client with that id, or null.
 */
export async function parseMessageRequest(
  body: unknown,
  findClient: (id: string) => Promise<KnownClient | null>,
  now = new Date(),
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

  const text = fields.text_message;
  if (text !== undefined && text !== null && typeof text !== 'string') throw new Invalid('Invalid text_message: must be a string');
  if (typeof text !== 'string' || isBlank(text)) throw new Invalid('Missing or empty text_message');
  if (characters(text) > MAX_TEXT_LENGTH) throw new Invalid(`Invalid text_message: at most ${MAX_TEXT_LENGTH} characters`);

  const nameField = fields.client_name;
  if (given(nameField) && (typeof nameField !== 'string' || characters(nameField) > MAX_NAME_LENGTH)) {
    throw new Invalid(`Invalid client_name: must be a string of at most ${MAX_NAME_LENGTH} characters`);
  }
  const requestedName = given(nameField) ? (nameField as string).trim() : null;

  const delay = parseDelay(fields.delay);
  const sendAt = delay && sendAtAfter(delay, now);
  if (!delay || !sendAt) throw new Invalid('Invalid delay');

  return {
    client,
    phone,
    name: requestedName ?? client?.name ?? null,
    text,
    sendAt,
    fingerprint: {
      message_type: 'text',
      client: client?.id ?? null,
      client_phone: requestedPhone,
      client_name: requestedName,
      text_message: text,
      delay,
    },
  };
}
