import { Prisma as Db } from '../../generated/prisma/client';
import { randomUUID } from 'node:crypto';
import { assignmentsInForce } from '../client-owners';
import { conversationEvent, messageEvent, type RecordEvent } from '../events';
import { conversationIdOf, recordInbound } from '../conversations';
import { ownerOfNumber } from '../business-numbers';
import { liveClientsWithPhone } from '../clients';
import { insertUnmatchedInbound, unmatchedInboundExists } from '../unmatched-inbound';
import type { Prisma } from '../prisma';
import type { Channel, InboundMedia } from '../../domain/channels';
import { ANSWERABLE_STATUSES, ANSWERABLE_WHEN_ACCEPTED } from '../../domain/message-answerable';
import { withClientId, type MessageWithClient } from './transition';

/** An inbound message's files as stored: the carrier's references, in snake case as views show them; null for none. */
const storedMedia = (media: InboundMedia[]) => (media.length === 0 ? Db.DbNull : media.map((m) => ({ url: m.url, content_type: m.contentType, size: m.size })));

/** A text a client sent us, as the carrier reported it. */
export interface NewInbound {
  provider: string;
  providerRef: string;
  /** `<provider>:<carrier id>`: a repeated callback is stored once. */
  inboundKey: string;
  /** The client's number. */
  from: string;
  /** Our number it was sent to. */
  to: string;
  text: string;
  receivedAt: Date;
  channel: Channel;
  /** The carrier's references of the files it carried. */
  media: InboundMedia[];
  /** RCS: the suggested reply tapped, stored as the message's one suggestion (typed RCS text: none). */
  suggestion?: { text: string; postbackData: string };
  /** The deployment's shared sender (the carrier's number or messaging service): whom a text to no business's number answers. */
  sender: string;
  /** On the shared sender, how far back a business's message to the phone counts (SHARED_SENDER_MATCH_DAYS). */
  sharedSenderMatchMs: number;
}

/** Whose text it is: the business whose number it went to, or the shared sender's. */
export type InboundTarget = { business: string } | { business: null };

export type InboundOutcome =
  /** `waitingStarted`: its conversation began waiting for an answer with it. */
  | { stored: 'matched'; message: MessageWithClient; waitingStarted?: boolean }
  /** `ambiguous`: more than one user (on the shared sender: business or user) had texted the phone from that number. */
  | { stored: 'unmatched'; ambiguous: boolean }
  /** Its carrier id was stored before: nothing done. */
  | { stored: 'repeat' };

/** The outbound messages a reply can answer (src/domain/message-answerable.ts), as a filter. */
const ANSWERABLE = [
  { status: { in: [...ANSWERABLE_STATUSES] } },
  { status: ANSWERABLE_WHEN_ACCEPTED, providerAcceptedAt: { not: null } },
] satisfies Db.MessageWhereInput[];
/** ANSWERABLE, for a query over `messages m`. */
export const ANSWERABLE_SQL = Db.sql`(m.status IN (${Db.raw(ANSWERABLE_STATUSES.map((status) => `'${status}'`).join(', '))}) OR (m.status = ${Db.raw(`'${ANSWERABLE_WHEN_ACCEPTED}'`)} AND m.provider_accepted_at IS NOT NULL))`;

export type Answered = { business: string; ownerId: string; clientPk: string | null; name: string | null };

/**
 * The message a reply answers: the latest ANSWERABLE one from the number the reply went to, only when
 * exactly one (business, user) texted the phone from it within SHARED_SENDER_MATCH_DAYS; `ambiguous`
 * when several did (then nobody is told of a reply that may be another's). To a business's own number
 * only that business's messages from it count, nothing of another business consulted; to the shared
 * sender, every business's. A text to a business's own number that no user of it texted the phone from
 * is the client's who writes first (heldBy).
 */
export async function answeredBy(tx: Db.TransactionClient, inbound: NewInbound, target: InboundTarget): Promise<Answered | 'ambiguous' | null> {
  const select = { business: true, ownerId: true, clientPk: true, name: true } as const;
  const latest = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];
  const sender = target.business === null ? inbound.sender : inbound.to;
  const ofBusiness = target.business === null ? Db.empty : Db.sql`AND m.business = ${target.business}`;
  const since = new Date(inbound.receivedAt.getTime() - inbound.sharedSenderMatchMs);
  // Which (business, user) pairs texted the phone from that number lately: two are enough to know it is ambiguous.
  const texters = await tx.$queryRaw<{ business: string; ownerId: string }[]>`
    SELECT DISTINCT m.business, m.owner_id AS "ownerId" FROM messages m
     WHERE m.phone = ${inbound.from} AND m.sender = ${sender} AND m.direction = 'outbound' AND m.created_at >= ${since}
       ${ofBusiness} AND ${ANSWERABLE_SQL}
     LIMIT 2`;
  if (texters.length === 0) return target.business === null ? null : heldBy(tx, target.business, inbound.from);
  if (texters.length > 1) return 'ambiguous';
  const [only] = texters;
  return tx.message.findFirst({ where: { phone: inbound.from, sender, direction: 'outbound', business: only.business, ownerId: only.ownerId, OR: ANSWERABLE }, orderBy: latest, select });
}

/**
 * A first text to a business's own number (click-to-chat, a lead texting the number it saw): the one
 * live client of the business stored with that phone, and its owner. Looked up in that business only;
 * two such clients (two users', or one user's twice) make it `ambiguous`: nobody is told.
 */
async function heldBy(tx: Db.TransactionClient, business: string, phone: string): Promise<Answered | 'ambiguous' | null> {
  const clients = await liveClientsWithPhone(tx, business, phone);
  if (clients.length === 0) return null;
  if (clients.length > 1) return 'ambiguous';
  const [only] = clients;
  return { business, ownerId: only.ownerId, clientPk: only.pk, name: only.name };
}

/** The business a text to `to` belongs to: the one holding that number (or that held it last), else the shared sender. */
export async function inboundTargetOf(db: Prisma | Db.TransactionClient, to: string): Promise<InboundTarget> {
  const owner = await ownerOfNumber(db, to);
  return { business: owner?.business ?? null };
}

/**
 * Takes the lock of a text's carrier id for the rest of the transaction, then says whether a text with
 * that id was stored before (matched or not): a repeated callback must change nothing.
 */
export async function inboundSeenBefore(tx: Db.TransactionClient, inboundKey: string): Promise<boolean> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`inbound/${inboundKey}`}, 0))`;
  return (await tx.message.count({ where: { inboundKey } })) > 0 || (await unmatchedInboundExists(tx, inboundKey));
}

/**
 * Stores a text seen the first time (inboundSeenBefore, in the same transaction): matched (see
 * answeredBy) to the business, owner and client of the message it answers, as a `received` message
 * with its `message.received` event naming the client's assignments in force at `now`; else kept as
 * unmatched, listed to the business whose number it went to (the operator's only on the shared sender).
 */
export async function storeInbound(
  tx: Db.TransactionClient,
  record: RecordEvent,
  inbound: NewInbound,
  target: InboundTarget,
  found: Answered | 'ambiguous' | null,
  now: Date,
  keyword = false,
): Promise<Exclude<InboundOutcome, { stored: 'repeat' }>> {
  const answered = found === 'ambiguous' ? null : found;
  if (!answered) {
    const { provider, inboundKey, to, from, text, receivedAt, channel } = inbound;
    await insertUnmatchedInbound(tx, { provider, inboundKey, sender: to, phone: from, text, receivedAt, business: target.business, ambiguous: found === 'ambiguous', channel, media: storedMedia(inbound.media) });
    return { stored: 'unmatched', ambiguous: found === 'ambiguous' };
  }
  // The conversation is keyed by our side as the reply was matched: the number texted, or the shared sender.
  const sender = target.business === null ? inbound.sender : inbound.to;
  const conversationId = answered.clientPk ? conversationIdOf(answered.clientPk, sender) : null;
  const message = await tx.message.create({
    data: {
      id: randomUUID(),
      direction: 'inbound',
      business: answered.business,
      ownerId: answered.ownerId,
      clientPk: answered.clientPk,
      messageType: 'text',
      phone: inbound.from,
      name: answered.name,
      text: inbound.text,
      status: 'received',
      sendAt: inbound.receivedAt,
      workflowId: null,
      provider: inbound.provider,
      providerRef: inbound.providerRef,
      sender: inbound.to,
      receivedAt: inbound.receivedAt,
      inboundKey: inbound.inboundKey,
      conversationId,
      channel: inbound.channel,
      media: storedMedia(inbound.media),
      ...(inbound.channel === 'rcs' && { suggestions: inbound.suggestion ? [{ text: inbound.suggestion.text, postback_data: inbound.suggestion.postbackData }] : [] }),
    },
    include: withClientId,
  });
  const assignments = message.clientPk ? await assignmentsInForce(tx, { pk: message.clientPk, ownerId: message.ownerId }, now) : [];
  const opened =
    conversationId && message.clientPk
      ? await recordInbound(tx, { id: conversationId, business: message.business, ownerId: message.ownerId, clientPk: message.clientPk, sender, at: now, keyword })
      : null;
  const event = messageEvent('message.received', message, 'carrier');
  await record({ ...event, data: { ...event.data, assignments } });
  if (opened?.opened) await record(conversationEvent('conversation.opened', opened.conversation, assignments.map((a) => a.agent), 'carrier'));
  return { stored: 'matched', message, waitingStarted: opened?.waitingStarted ?? false };
}
