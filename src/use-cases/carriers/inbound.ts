import type { Carrier, CarrierCallback } from '../../carriers';
import { assignmentsInForce } from '../../db/client-owners';
import { storeInbound, type InboundOutcome } from '../../db/messages';
import { recordOptIn, recordOptOut } from '../../db/opt-outs';
import type { Prisma } from '../../db/prisma';
import { keywordOf, OPT_IN_CONFIRMATION, OPT_OUT_CONFIRMATION } from './keywords';
import { readCallback } from './receipts';

export interface InboundDeps {
  prisma: Prisma;
  carrier: Carrier;
  /** What HELP and INFO are answered with (SMS_HELP_TEXT). */
  helpText: string;
  /** Counts a text that answered no message of ours. */
  countUnmatched?: () => void;
  /** A keyword's answer that the carrier did not take: reported without the number or the text. */
  onReplyFailed?: (error: unknown) => void;
}

/** Text as PostgreSQL can store it: no NUL, no lone surrogate. */
const storable = (text: string) => Buffer.from(text.replace(/\0/g, ''), 'utf8').toString('utf8');

/**
 * A verified inbound-text callback. The text is stored once per carrier id, matched to whoever last
 * reached that number from our sender (a message the carrier accepted; `message.received`, naming the client's assignments in force) or
 * kept as unmatched. A keyword is also an ordinary reply the owner sees; besides, STOP (and its
 * synonyms) opts the number out and START back in for our sender, and HELP gets the help text. Each
 * answer is sent once, after the commit, and only for a text seen the first time; a carrier that
 * refuses it (its own opt-out handling may already block the number) does not undo anything.
 */
export async function receiveInbound(deps: InboundDeps, callback: CarrierCallback): Promise<InboundOutcome | null> {
  const { carrier, prisma } = deps;
  const inbound = readCallback(() => carrier.parseInbound(callback));
  if (!inbound) return null;
  const text = storable(inbound.text);
  const keyword = keywordOf(text);
  const now = new Date();
  const change = { sender: carrier.sender, phone: inbound.from, detail: keyword?.word ?? '', at: inbound.receivedAt };
  const outcome = await storeInbound(
    prisma,
    {
      provider: carrier.name,
      providerRef: inbound.providerRef,
      inboundKey: `${carrier.name}:${inbound.providerRef}`,
      from: inbound.from,
      to: inbound.to,
      text,
      receivedAt: inbound.receivedAt,
      sender: carrier.sender,
    },
    async (tx, message) => ({ assignments: message.clientPk ? await assignmentsInForce(tx, { pk: message.clientPk, ownerId: message.ownerId }, now) : [] }),
    async (tx) => {
      if (keyword?.kind === 'optOut') await recordOptOut(tx, { ...change, source: 'keyword' });
      if (keyword?.kind === 'optIn') await recordOptIn(tx, change);
    },
  );
  if (outcome.stored === 'unmatched') deps.countUnmatched?.();
  if (outcome.stored !== 'repeat' && keyword) {
    const answer = { optOut: OPT_OUT_CONFIRMATION, optIn: OPT_IN_CONFIRMATION, help: deps.helpText }[keyword.kind];
    await carrier.reply(inbound.from, answer).catch((error: unknown) => deps.onReplyFailed?.(error));
  }
  return outcome;
}
