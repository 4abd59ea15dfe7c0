import { randomUUID } from 'node:crypto';
import type { Client as TemporalClient } from '@temporalio/client';
import type { Message } from '../../generated/prisma/client';
import { abandonScheduledMessage, findMessageByIdempotencyKey, insertScheduledMessage, type NewMessage, type StoredTemplate } from '../../db/messages';
import { renderTemplate } from './channel-request';
import { refuseMediaOnPrivateHosts, type MediaHostDeps } from './media-hosts';
import { checkChannelRules, type ChannelDeps } from './channel-rules';
import { findTemplate } from '../../db/templates';
import { numberChannelOf } from '../../domain/channels';
import { postbackOf } from '../../domain/rcs';
import { isOptedOut } from '../../db/opt-outs';
import type { Prisma } from '../../db/prisma';
import type { Admissions } from '../../starters/admission';
import { refuseWhileKnownDown } from '../../starters/availability';
import { Conflict, Unavailable } from '../errors';
import type { Scope } from '../../db/scope';
import { findClient } from '../../db/clients';
import { findAgent } from '../../db/agents';
import { answerFirstResponse } from '../routing/answer';
import type { MessageStartConfirmations } from '../../db/message-start-confirmations';
import { readIdempotencyKey } from '../input/idempotency-key';
import { requestHash } from './idempotency';
import { parseMessageRequest, type MessageRequest } from './request';
import { smsShape } from './sms-encoding';
import { sendersOf } from './sender';
import type { NumberRegistrations } from '../numbers/registration';
import { startMessageWorkflow, type ScheduledMessage } from '../../starters/send-message-workflow';

export interface AcceptDeps extends MediaHostDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
  /** Backpressure: a request beyond the places in flight waits briefly, then is a 503 before anything is stored. */
  admission?: Pick<Admissions, 'messages'>;
  log?: (error: unknown) => void;
  /** The configured carrier: messages go out from its sender (or the business's own numbers), and not to a number that opted out. */
  carrier?: { sender: string };
  /** REQUIRE_BUSINESS_NUMBERS: a business without numbers of its own gets a 409 instead of the shared sender. */
  requireBusinessNumbers?: boolean;
  /** Told of each message whose workflow start succeeded (the reconciler's recent pass skips those rows). */
  messageStarts?: Pick<MessageStartConfirmations, 'confirm'>;
  /** What the shared sender carries, and the carriers' word on templates (channel-rules.ts). */
  sharedSenderChannels?: ChannelDeps['sharedSenderChannels'];
  templateApprovals?: ChannelDeps['templateApprovals'];
  /** A US number's A2P registration: a send it forbids is a 409 (REQUIRE_A2P_REGISTRATION). */
  registrations?: Pick<NumberRegistrations, 'gate'>;
}

/** Starts the stored message's workflow; the Nexus operation starts it with its completion callback. */
export type StartMessageWorkflow = (message: ScheduledMessage) => Promise<void>;

/** How long a caller waits before repeating a request whose workflow could not be started. */
export const RETRY_AFTER_SECONDS = 5;

export const idempotencyKeyReused = () =>
  new Conflict('Idempotency-Key was already used with a different request', 'idempotency-key-reused');

/** The template as the message keeps it: with the caller's own text too, a fallback for when the text may not go (outside WhatsApp's window). */
function storedTemplateOf(request: MessageRequest): StoredTemplate | null {
  if (!request.template) return null;
  const ownText = request.fingerprint.text_message !== '';
  return { ...request.template.stored, ...(ownText && { fallback: true, text: renderTemplate(request.template) }) };
}

/** The row a checked request is stored as: a new id, its SMS shape computed once here. */
export function newMessageOf(request: MessageRequest, keys: { sender: string | null; idempotencyKey: string | null; requestHash: string | null }): NewMessage {
  const sms = smsShape(request.text);
  return {
    id: randomUUID(),
    clientPk: request.client?.pk ?? null,
    clientId: request.client?.id ?? null,
    phone: request.phone,
    name: request.name,
    text: request.text,
    sendAt: request.sendAt,
    encoding: sms.encoding,
    segments: sms.segments,
    sendWindow: request.sendWindow,
    deferredUntil: request.deferredUntil,
    channel: request.channel,
    media: request.media.length > 0 ? request.media : null,
    template: storedTemplateOf(request),
    // Stored with their postback data filled in: what the carrier sends and what a tap is matched against.
    suggestions: request.suggestions.length > 0 ? request.suggestions.map((s) => ({ text: s.text, postback_data: postbackOf(s) })) : null,
    ...keys,
  };
}

/**
 * Stores the message as scheduled and starts its workflow. A repeated Idempotency-Key with the same
 * request returns the first message (`replayed`) and starts its workflow only if it never ran. Its
 * callers hold a message place (inMessagePlace).
 */
export async function acceptMessage(
  deps: AcceptDeps,
  scope: Scope,
  request: MessageRequest,
  idempotencyKey: string | null,
  requestId?: string,
  start: StartMessageWorkflow = (message) => startMessageWorkflow(deps.temporal, deps.taskQueue, message),
): Promise<{ message: Message; replayed: boolean }> {
  refuseWhileKnownDown(deps.temporal);
  return storeAndStart(deps, scope, request, idempotencyKey, requestId, start);
}

/**
 * Runs a send's checks and accept in one of the caller's message places (src/starters/admission.ts).
 * The checks read the database too, so a tenant beyond its places waits, or is refused, before its
 * requests reach the database that other tenants' requests need.
 */
export function inMessagePlace<T>(deps: Pick<AcceptDeps, 'admission'>, scope: Scope, work: () => Promise<T>): Promise<T> {
  return deps.admission ? deps.admission.messages.run(scope.ownerId, work) : work();
}

async function storeAndStart(
  deps: AcceptDeps,
  scope: Scope,
  request: MessageRequest,
  idempotencyKey: string | null,
  requestId: string | undefined,
  start: StartMessageWorkflow,
): Promise<{ message: Message; replayed: boolean }> {
  const hash = idempotencyKey ? requestHash(request.fingerprint) : null;
  const sameRequest = (first: Message) => {
    if (first.requestHash !== hash) throw idempotencyKeyReused();
    return { message: first, replayed: true };
  };
  const sender = (await sendersOf(deps, scope.business, [request.phone], numberChannelOf(request.channel, request.media.length)))(request.phone);
  try {
    if (sender !== null && (await isOptedOut(deps.prisma, scope.business, sender, request.phone, request.channel))) {
      throw new Conflict(request.channel === 'whatsapp' ? 'Recipient has opted out of WhatsApp messages' : 'Recipient has opted out of text messages');
    }
    await deps.registrations?.gate()(scope.business, sender);
    await checkChannelRules(deps, scope, request, sender);
  } catch (error) {
    // A repeat of a request accepted before (an opt-out since, a window closed since) still gets its first answer.
    const first = error instanceof Conflict && idempotencyKey ? await findMessageByIdempotencyKey(deps.prisma, scope, idempotencyKey) : null;
    if (!first) throw error;
  }
  // The insert itself finds a repeated key (its unique index) and returns the first message; a new one is
  // stored with its message.scheduled event in one transaction.
  const stored = await insertScheduledMessage(deps.prisma, scope, newMessageOf(request, { sender, idempotencyKey, requestHash: hash }));
  const { message, replayed } = stored.replayed ? sameRequest(stored.message) : stored;

  try {
    // A replay heals a crash between storing and starting; once the message has left `scheduled`, its workflow ran.
    if (!replayed || message.status === 'scheduled') {
      await start({ ...message, clientId: request.client?.id ?? null, requestId });
      deps.messageStarts?.confirm(message.id);
    }
  } catch (error) {
    deps.log?.(error);
    if (idempotencyKey) {
      throw new Unavailable('The message is stored but not scheduled yet: repeat the request with the same Idempotency-Key', RETRY_AFTER_SECONDS);
    }
    // Without a key nobody can heal it, so it must not look scheduled; a workflow that did start finds it failed.
    if (await abandonScheduledMessage(deps.prisma, message.id)) {
      throw new Unavailable('The message could not be scheduled and will not be sent: try again', RETRY_AFTER_SECONDS);
    }
    // Otherwise its workflow did start and has already claimed it.
  }
  if (!replayed && request.client && request.agent) await answerFirstResponse(deps, { clientPk: request.client.pk, agentPk: request.agent.pk });
  return { message, replayed };
}

/**
 * The send-message request as the route and the Nexus operation receive it: the Idempotency-Key, then,
 * in one of the caller's places, the body's checks in the contract's order (the client's ownership
 * among them) and accept.
 */
export async function sendMessageRequest(
  deps: AcceptDeps,
  scope: Scope,
  body: unknown,
  idempotencyKeyHeader: string | undefined,
  requestId?: string,
  start?: StartMessageWorkflow,
): Promise<{ message: Message; replayed: boolean }> {
  const idempotencyKey = readIdempotencyKey(idempotencyKeyHeader);
  return inMessagePlace(deps, scope, async () => {
    const request = await parseMessageRequest(
      body,
      (id) => findClient(deps.prisma, scope, id),
      undefined,
      (id) => findAgent(deps.prisma, scope, id),
      (id) => findTemplate(deps.prisma, scope, id),
    );
    await refuseMediaOnPrivateHosts(request.media, deps);
    return acceptMessage(deps, scope, request, idempotencyKey, requestId, start);
  });
}
