import type { Carrier, CarrierCallback } from '../../carriers';
import { withEvents } from '../../db/events';
import { answeredBy, inboundSeenBefore, inboundTargetOf, storeInbound, type InboundOutcome, type NewInbound } from '../../db/messages';
import { optOutChannelOf, recordOptIn, recordOptOut } from '../../db/opt-outs';
import { numberOfRcsAgent } from '../../db/business-numbers';
import { routeUnownedReply } from '../routing/decide';
import { afterRouted, type RoutingDeps } from '../routing/route';
import { startReplyClock } from '../conversations/clocks';
import type { Prisma } from '../../db/prisma';
import { keywordOf, OPT_IN_CONFIRMATION, OPT_OUT_CONFIRMATION } from './keywords';
import { readCallback } from './receipts';

export interface InboundDeps {
  prisma: Prisma;
  /** The deployment's carrier: its sender is the shared one. */
  carrier: Carrier;
  /** The carrier of the number the text went to (its account signed the callback): keyword answers go out from that number. */
  answeringCarrier?: Carrier;
  /** SHARED_SENDER_MATCH_DAYS in ms; 30 days when absent. */
  sharedSenderMatchMs?: number;
  /** Counts a reply that more than one user of the business (on the shared sender: business or user) could own (kept unmatched). */
  countAmbiguous?: () => void;
  /** What HELP and INFO are answered with (SMS_HELP_TEXT). */
  helpText: string;
  /** Counts a text that answered no message of ours. */
  countUnmatched?: () => void;
  /** A keyword's answer that the carrier did not take: reported without the number or the text. */
  onReplyFailed?: (error: unknown) => void;
  /** Where a reply routed to a new owner (route_unowned_replies) gets its workflows; without it, only the rows (the reconciler starts expiries). */
  routing?: RoutingDeps;
}

/** Text as PostgreSQL can store it: no NUL, no lone surrogate. */
const storable = (text: string) => Buffer.from(text.replace(/\0/g, ''), 'utf8').toString('utf8');

/**
 * A verified inbound-text callback. The text is stored once per carrier id and matched by the number
 * it was sent to: a business's own number reaches that business only, the shared sender any; either
 * only when one user (of that business) texted the phone from it lately (answeredBy), or, to a
 * business's number nobody of it texted the phone from, when one user of that business holds the one
 * client with that phone (the client writing first). Matched:
 * `message.received`, naming the client's assignments in force; else kept as unmatched. A keyword is also an ordinary reply the owner sees; besides, STOP (and its
 * synonyms) opts the number out — of every number of that business, or of the shared sender — and
 * START back in, and HELP gets the help text. Each answer is sent once, from the number texted, after
 * the commit, and only for a text seen the first time; a carrier that refuses it does not undo anything.
 * A text (not a keyword) from a client nobody holds is routed by its owner's `route_unowned_replies`
 * policy in the same transaction, so `message.received` names the new owner.
 */
export async function receiveInbound(deps: InboundDeps, callback: CarrierCallback): Promise<InboundOutcome | null> {
  const { carrier, prisma } = deps;
  const parsed = readCallback(() => carrier.parseInbound(callback));
  if (!parsed) return null;
  // An RCS message names our agent: its number (the SMS fallback's) is the sender, so one conversation and one opt-out hold both.
  const inbound = parsed.channel === 'rcs' ? { ...parsed, to: (await numberOfRcsAgent(prisma, parsed.to)) ?? parsed.to } : parsed;
  const text = storable(inbound.text);
  const keyword = keywordOf(text);
  const now = new Date();
  const target = await inboundTargetOf(prisma, inbound.to);
  const change = {
    sender: target.business === null ? carrier.sender : inbound.to,
    business: target.business,
    phone: inbound.from,
    channel: optOutChannelOf(inbound.channel),
    detail: keyword?.word ?? '',
    at: inbound.receivedAt,
  };
  const stored: NewInbound = {
    provider: carrier.name,
    providerRef: inbound.providerRef,
    inboundKey: `${carrier.name}:${inbound.providerRef}`,
    from: inbound.from,
    to: inbound.to,
    text,
    receivedAt: inbound.receivedAt,
    channel: inbound.channel,
    media: inbound.media,
    ...(inbound.suggestion && { suggestion: inbound.suggestion }),
    sender: carrier.sender,
    sharedSenderMatchMs: deps.sharedSenderMatchMs ?? 30 * 24 * 60 * 60 * 1000,
  };
  const reply: { routed: Awaited<ReturnType<typeof routeUnownedReply>> } = { routed: null };
  const outcome = await withEvents(prisma, async (tx, record): Promise<InboundOutcome> => {
    if (await inboundSeenBefore(tx, stored.inboundKey)) return { stored: 'repeat' };
    const found = await answeredBy(tx, stored, target);
    if (keyword?.kind === 'optOut') await recordOptOut(tx, { ...change, source: 'keyword' });
    if (keyword?.kind === 'optIn') await recordOptIn(tx, change);
    // A keyword is no lead's reply: STOP, START or HELP from a client nobody holds is not routed.
    if (found && found !== 'ambiguous' && found.clientPk && !keyword) reply.routed = await routeUnownedReply(tx, record, { ...found, clientPk: found.clientPk }, now);
    return storeInbound(tx, record, stored, target, found, now, keyword !== null);
  });
  if (reply.routed && deps.routing) await afterRouted(deps.routing, reply.routed.outcome, reply.routed.policy);
  if (outcome.stored === 'matched' && outcome.waitingStarted && outcome.message.clientPk && outcome.message.client && deps.routing) {
    await startReplyClock(deps.routing, { business: outcome.message.business, clientId: outcome.message.client.id, clientPk: outcome.message.clientPk });
  }
  if (outcome.stored === 'unmatched') (outcome.ambiguous ? deps.countAmbiguous : deps.countUnmatched)?.();
  if (outcome.stored !== 'repeat' && keyword) {
    const answer = { optOut: OPT_OUT_CONFIRMATION, optIn: OPT_IN_CONFIRMATION, help: deps.helpText }[keyword.kind];
    await (deps.answeringCarrier ?? carrier).reply(inbound.from, answer, inbound.channel === 'rcs' ? 'sms' : inbound.channel).catch((error: unknown) => deps.onReplyFailed?.(error));
  }
  return outcome;
}
