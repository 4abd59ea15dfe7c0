import { MAX_BATCH_RECIPIENTS } from '../../domain';
import { Invalid, UseCaseError } from '../errors';
import { RESOURCE_ID_PATTERN } from '../input/validation';
import { fieldsOfSchema, refuseUnknownFields, type Fields } from '../input/known-fields';
import { SendMessageBatchRequest } from './batch-contract';
import { parseMessageRequest, type KnownAgent, type KnownClient, type MessageRequest } from './request';
import type { RequestedTemplate } from './channel-request';

/** What `{{client_name}}` in a text stands for. */
const CLIENT_NAME = /\{\{\s*client_name\s*\}\}/g;

export type RecipientOutcome = { request: MessageRequest } | { error: UseCaseError };

export interface BatchRequest {
  recipients: RecipientOutcome[];
  /** The canonical request, for the Idempotency-Key's hash: each recipient's fingerprint or its refusal. */
  fingerprint: unknown[];
}

/** A campaign's fields (the contract's): a send's, with the recipients' own in `recipients[]`. */
const BATCH_FIELDS = fieldsOfSchema(SendMessageBatchRequest) as Fields;

const INVALID_RECIPIENTS = `Invalid recipients: must be an array of 1 to ${MAX_BATCH_RECIPIENTS} objects`;

/**
 * The batch's checks: message_type, then `recipients`; each recipient is then checked by the rules and
 * texts of a single send (parseMessageRequest) on the body it stands for: its own fields, the batch's
 * message_type, delay, send_at and send_window, and its own text_message or the batch's, with `{{client_name}}`
 * replaced by its name; then a phone repeated from an earlier recipient is refused. One refused
 * recipient does not refuse the others. `findClients` loads every named client in one query.
 */
export async function parseBatchRequest(
  body: unknown,
  findClients: (ids: string[]) => Promise<KnownClient[]>,
  now = new Date(),
  findAgents: (ids: string[]) => Promise<KnownAgent[]> = async () => [],
  findTemplate: (id: string) => Promise<RequestedTemplate['row'] | null> = async () => null,
): Promise<BatchRequest> {
  const fields = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  if (fields.message_type !== 'text') throw new Invalid('Invalid message_type: must be "text"');
  const { recipients } = fields;
  if (!Array.isArray(recipients) || recipients.length < 1 || recipients.length > MAX_BATCH_RECIPIENTS) throw new Invalid(INVALID_RECIPIENTS);
  if (!recipients.every((r) => typeof r === 'object' && r !== null && !Array.isArray(r))) throw new Invalid(INVALID_RECIPIENTS);
  // A misspelled field refuses the whole campaign: none of it leaves with a field read as absent.
  refuseUnknownFields(fields, BATCH_FIELDS);

  const ids = [...new Set(recipients.map((r) => (r as Record<string, unknown>).client).filter((id): id is string => typeof id === 'string' && RESOURCE_ID_PATTERN.test(id)))];
  const clients = new Map((await findClients(ids)).map((client) => [client.id, client]));
  const findClient = async (id: string) => clients.get(id) ?? null;
  const agentIds = [...new Set(recipients.map((r) => (r as Record<string, unknown>).agent).filter((id): id is string => typeof id === 'string' && RESOURCE_ID_PATTERN.test(id)))];
  const agents = new Map((await findAgents(agentIds)).map((agent) => [agent.id, agent]));
  const findAgent = async (id: string) => agents.get(id) ?? null;
  // The campaign's one template, read once.
  const templates = new Map<string, Promise<RequestedTemplate['row'] | null>>();
  const findOnce = (id: string) => {
    if (!templates.has(id)) templates.set(id, findTemplate(id));
    return templates.get(id)!;
  };

  const outcomes: RecipientOutcome[] = [];
  for (const recipient of recipients as Record<string, unknown>[]) {
    const text = recipient.text_message !== undefined && recipient.text_message !== null ? recipient.text_message : fields.text_message;
    const single = {
      message_type: fields.message_type,
      client: recipient.client,
      client_phone: recipient.client_phone,
      client_name: recipient.client_name,
      text_message: text,
      delay: fields.delay,
      send_at: fields.send_at,
      send_window: fields.send_window,
      agent: recipient.agent,
      channel: fields.channel,
      media: fields.media,
      template: fields.template,
      suggestions: fields.suggestions,
    };
    try {
      outcomes.push({ request: await withName(await parseMessageRequest(single, findClient, now, findAgent, findOnce), single) });
    } catch (error) {
      if (!(error instanceof UseCaseError)) throw error;
      outcomes.push({ error });
    }
  }
  // Taken before repeats are refused: they follow from the recipients alone, and a key used before this rule still replays.
  const fingerprint = outcomes.map((o) => ('request' in o ? o.request.fingerprint : { refused: o.error.detail }));
  refuseRepeatedPhones(outcomes);
  return { recipients: outcomes, fingerprint };
}

/**
 * A phone (E.164, however given: `client` or `client_phone`) already taken by an earlier recipient that
 * passed its checks is refused, naming that recipient: one campaign texts a phone once.
 */
function refuseRepeatedPhones(outcomes: RecipientOutcome[]): void {
  const firstWith = new Map<string, number>();
  for (const [index, outcome] of outcomes.entries()) {
    if (!('request' in outcome)) continue;
    const earlier = firstWith.get(outcome.request.phone);
    if (earlier === undefined) firstWith.set(outcome.request.phone, index);
    else outcomes[index] = { error: new Invalid(`Duplicate recipient: same phone as recipient ${earlier}`) };
  }
}

/** The text with `{{client_name}}` replaced by the recipient's name; checked again as a single text would be. */
async function withName(request: MessageRequest, single: Record<string, unknown>): Promise<MessageRequest> {
  if (!request.text.match(CLIENT_NAME)) return request;
  if (!request.name) throw new Invalid('Missing client_name: text_message uses {{client_name}}');
  const text = request.text.replace(CLIENT_NAME, () => request.name!);
  // The substituted text meets the single send's rules too (its length above all); the fingerprint keeps the text as asked.
  await parseMessageRequest({ ...single, text_message: text }, async () => request.client, undefined, async () => request.agent, async () => request.template?.row ?? null);
  return { ...request, text };
}
