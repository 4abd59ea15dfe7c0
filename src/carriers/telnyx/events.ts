import type { Receipt, ReceiptStatus } from '../types';
import { isTelnyxOptOutCode } from './errors';

/*
 * Telnyx's messaging webhooks: `{ data: { id, event_type, occurred_at, payload, record_type: "event" }, meta }`.
 * Receipts come as `message.sent`, `message.finalized` and (WhatsApp) `message.read` (payload: the outbound
 * message, its recipient's status in `to[0].status`, `errors[].code`, `cost { amount, currency }`), for
 * SMS, MMS and WhatsApp alike; messages from clients as `message.received` (./inbound.ts).
 */

interface TelnyxEvent {
  event_type?: unknown;
  occurred_at?: unknown;
  payload?: Record<string, unknown>;
}

/** The event of a webhook body; a body that is no Telnyx event throws (the door answers 400). */
export function eventOf(rawBody: Buffer): TelnyxEvent {
  const data = (JSON.parse(rawBody.toString('utf8')) as { data?: unknown } | null)?.data as TelnyxEvent | undefined;
  if (!data || typeof data !== 'object' || !data.payload || typeof data.payload !== 'object') throw new Error('not a Telnyx event');
  return data;
}

export const string = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

export function dateOf(value: unknown): Date | undefined {
  const text = string(value);
  const date = text ? new Date(text) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}

/** Telnyx's recipient status → ours; undefined for the in-between ones (queued, sending) we do not track. */
const STATUSES: Record<string, ReceiptStatus> = {
  sent: 'sent',
  // Final without a handset's confirmation: the message left, nothing more is known.
  delivery_unconfirmed: 'sent',
  delivered: 'delivered',
  // WhatsApp's read receipt.
  read: 'read',
  delivery_failed: 'undelivered',
  expired: 'undelivered',
  // Telnyx could not hand it to the network at all.
  sending_failed: 'failed',
};

const CODE = /^\d{1,8}$/;
const AMOUNT = /^-?\d{1,12}(\.\d{1,12})?$/;
const CURRENCY = /^[A-Z]{3}$/;
/** A reference is an id, not prose. */
export const REF = /^[A-Za-z0-9._:-]{1,200}$/;

function errorCodeOf(errors: unknown): string | undefined {
  const code = Array.isArray(errors) ? (errors[0] as { code?: unknown } | undefined)?.code : undefined;
  const text = typeof code === 'number' ? String(code) : code;
  return typeof text === 'string' && CODE.test(text) ? text : undefined;
}

export function priceOf(cost: unknown): { amount: string; unit: string } | undefined {
  const { amount, currency } = (cost ?? {}) as { amount?: unknown; currency?: unknown };
  const value = typeof amount === 'number' ? String(amount) : amount;
  return typeof value === 'string' && AMOUNT.test(value) && typeof currency === 'string' && CURRENCY.test(currency) ? { amount: value, unit: currency } : undefined;
}

const RECEIPT_EVENTS = new Set(['message.sent', 'message.finalized', 'message.read']);

/** A receipt from `message.sent` / `message.finalized` / `message.read`; null for any other event or a status we do not track; throws for a body that is no event. */
export function receiptOf(rawBody: Buffer, messageId: string | undefined): Receipt | null {
  const event = eventOf(rawBody);
  if (typeof event.event_type !== 'string' || !RECEIPT_EVENTS.has(event.event_type)) return null;
  const payload = event.payload!;
  const providerRef = string(payload.id);
  const recipient = Array.isArray(payload.to) ? (payload.to[0] as { status?: unknown } | undefined) : undefined;
  const status = typeof recipient?.status === 'string' ? STATUSES[recipient.status] : undefined;
  if (!providerRef || !REF.test(providerRef) || !status) return null;
  const errorCode = status === 'undelivered' || status === 'failed' ? errorCodeOf(payload.errors) : undefined;
  const price = priceOf(payload.cost);
  const at = dateOf(event.occurred_at) ?? dateOf(payload.completed_at) ?? dateOf(payload.sent_at);
  // The number it went out from: a receipt moves only a message sent from it.
  const sender = string((payload.from as { phone_number?: unknown } | undefined)?.phone_number);
  // `type: RCS`: RCS carried it; an RCS message's receipt of type SMS/MMS is Telnyx's fallback (applyReceipt).
  const deliveredChannel = string(payload.type) === 'RCS' ? ('rcs' as const) : undefined;
  return { providerRef, status, ...(messageId ? { messageId } : {}), ...(sender?.startsWith('+') && { sender }), ...(deliveredChannel && { deliveredChannel }), ...(errorCode ? { errorCode } : {}), ...(isTelnyxOptOutCode(errorCode) && { optOut: true }), ...(price ? { price } : {}), ...(at ? { at } : {}) };
}

/**
 * Our number a webhook is about, read before its signature is checked: a receipt's `from`, an inbound
 * text's `to`. Undefined for a body that is no event (the deployment's key checks it, the parser refuses it).
 */
export function telnyxCallbackNumber(rawBody: Buffer, kind: 'receipt' | 'inbound'): string | undefined {
  let payload: Record<string, unknown>;
  try {
    payload = eventOf(rawBody).payload!;
  } catch {
    return undefined;
  }
  const number = kind === 'receipt' ? phoneOf(payload.from) : Array.isArray(payload.to) ? phoneOf(payload.to[0]) : string(payload.to);
  if (kind === 'inbound' && payload.type === 'RCS') return rcsAgentOf(payload);
  return number?.startsWith('+') ? number : undefined;
}

const phoneOf = (party: unknown) => string((party as { phone_number?: unknown } | undefined)?.phone_number);

/** Our RCS agent an inbound RCS message went to: `to[0].agent_id` (or `to` as a string). */
export function rcsAgentOf(payload: Record<string, unknown>): string | undefined {
  const to = Array.isArray(payload.to) ? payload.to[0] : payload.to;
  const agent = typeof to === 'string' ? to : string((to as { agent_id?: unknown } | undefined)?.agent_id);
  return agent && REF.test(agent) ? agent : undefined;
}
