import type { Carrier, CarrierCallback } from '../../carriers';
import { applyReceipt, type ReceiptOutcome } from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import { tellMessageWorkflowOfReceipt } from '../../starters/send-message-workflow';
import { Invalid } from '../errors';
import { logMessageOutcome } from '../messages/outcome-line';
import type { NumberRegistrations } from '../numbers/registration';
import type { Client as TemporalClient } from '@temporalio/client';

export interface ReceiptDeps {
  prisma: Prisma;
  carrier: Carrier;
  /** Seconds from `sent` to `delivered`, once per message a receipt delivers. */
  observeDelivered?: (seconds: number) => void;
  /** Where the message's run is told of the receipt (absent: a script's API without Temporal). */
  temporal?: TemporalClient;
  /** A run that could not be told: it reads its row when its wait for a receipt ends. */
  onTellFailed?: (error: unknown) => void;
  /** A refusal for the sender's A2P registration (30034 and the like) has its registration read again. */
  registrations?: Pick<NumberRegistrations, 'afterRefusal'>;
}

/** A signed callback the carrier's parser cannot read is the request's fault: a 400, nothing changed. */
export function readCallback<T>(parse: () => T): T {
  try {
    return parse();
  } catch {
    throw new Invalid('Unreadable carrier callback');
  }
}

const MESSAGE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A verified status callback: its receipt moves the message forward, or changes nothing (a repeat, an
 * older status, a message we do not know, a status we do not track). The message is found by our id
 * (the callback URL's, else the carrier's client reference) or by the carrier's own id.
 */
export async function recordReceipt(deps: ReceiptDeps, callback: CarrierCallback): Promise<ReceiptOutcome | null> {
  const receipt = readCallback(() => deps.carrier.parseReceipt(callback));
  if (!receipt) return null;
  const messageId = [callback.messageId, receipt.messageId].find((id) => id !== undefined && MESSAGE_ID.test(id));
  const outcome = await applyReceipt(deps.prisma, {
    messageId,
    provider: deps.carrier.name,
    providerRef: receipt.providerRef,
    status: receipt.status,
    errorCode: receipt.errorCode,
    meaning: receipt.errorCode ? deps.carrier.describeCode?.(receipt.errorCode) : undefined,
    optOut: receipt.optOut,
    price: receipt.price,
    at: receipt.at,
    sender: receipt.sender,
    deliveredChannel: receipt.deliveredChannel,
    fallback: receipt.fallback,
  });
  if (outcome.applied) logMessageOutcome(outcome.message, deps.carrier.name);
  if (outcome.applied && receipt.errorCode) await deps.registrations?.afterRefusal(outcome.message.business, outcome.message.sender, receipt.errorCode);
  if (outcome.applied && outcome.message.status === 'delivered' && outcome.sentAt && outcome.message.deliveredAt) {
    deps.observeDelivered?.(Math.max(0, (outcome.message.deliveredAt.getTime() - outcome.sentAt.getTime()) / 1000));
  }
  // A batch's message has no run of its own to follow it.
  if (outcome.applied && deps.temporal && outcome.message.workflowId && outcome.message.batchId === null) {
    await tellMessageWorkflowOfReceipt(deps.temporal, outcome.message.workflowId).catch((error) => deps.onTellFailed?.(error));
  }
  return outcome;
}
