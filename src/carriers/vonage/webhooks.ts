import { createHash, timingSafeEqual } from 'node:crypto';
import type { CarrierCallback, Receipt, ReceiptStatus } from '../types';
import { isVonageOptOutCode, vonageErrorCode } from './errors';

const vonageJwt = () => require('@vonage/jwt') as typeof import('@vonage/jwt');

/*
 * Vonage's Messages API webhooks (v1). Status: `{ message_uuid, to, from, timestamp, status, channel,
 * client_ref?, error?: { type, title, … }, usage?: { price, currency } }`, for every channel (sms, mms,
 * whatsapp). Inbound messages: ./inbound.ts. Numbers are E.164 without the `+`.
 * Each is signed with a JWT in `Authorization: Bearer …`, HS256 with the account's signature secret,
 * whose `payload_hash` claim is the SHA-256 (hex) of the body.
 */

/** A signature older than this (or this far in the future) is refused: a replayed callback. */
export const SIGNATURE_TOLERANCE_MS = 5 * 60 * 1000;

interface SignedClaims {
  iat?: unknown;
  payload_hash?: unknown;
  api_key?: unknown;
  application_id?: unknown;
}

function decodePart(part: string | undefined): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8')) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export interface SignatureExpectations {
  secret: string;
  /** When configured, a token naming another account or application is refused. */
  apiKey?: string;
  applicationId?: string;
  now?: number;
}

/**
 * The callback's bearer JWT: HS256 only (the SDK's check would also take RS256), a valid signature by
 * the SDK's `verifySignature`, a `payload_hash` equal to the body's SHA-256, and a fresh `iat`.
 */
export function verifyVonageSignature(callback: CarrierCallback, expected: SignatureExpectations): boolean {
  const match = /^Bearer\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/.exec(callback.headers.authorization?.trim() ?? '');
  if (!match) return false;
  const token = match[1]!;
  const [headerPart, claimsPart] = token.split('.');
  if (decodePart(headerPart)?.alg !== 'HS256') return false;
  if (!vonageJwt().verifySignature(token, expected.secret)) return false;
  const claims = decodePart(claimsPart) as SignedClaims | undefined;
  if (!claims || typeof claims.payload_hash !== 'string' || typeof claims.iat !== 'number') return false;
  if (!sameText(claims.payload_hash.toLowerCase(), createHash('sha256').update(callback.rawBody).digest('hex'))) return false;
  const age = (expected.now ?? Date.now()) - claims.iat * 1000;
  if (!(age <= SIGNATURE_TOLERANCE_MS && age >= -SIGNATURE_TOLERANCE_MS)) return false;
  if (expected.apiKey && typeof claims.api_key === 'string' && claims.api_key !== expected.apiKey) return false;
  if (expected.applicationId && typeof claims.application_id === 'string' && claims.application_id !== expected.applicationId) return false;
  if (callback.messageId === undefined) return true;
  const clientRef = clientRefOf(callback.rawBody);
  return clientRef === null || clientRef === callback.messageId;
}

/**
 * The signature covers the body, not the URL: a signed receipt replayed to another message's
 * `/status/<id>` would otherwise count for that message. Our sends put the id in both `webhook_url` and
 * `client_ref`, so at an id URL the signed `client_ref` must name the same message. A body that is no
 * JSON is left to the parser (the door's 400).
 */
function clientRefOf(rawBody: Buffer): string | undefined | null {
  try {
    const body = JSON.parse(rawBody.toString('utf8')) as { client_ref?: unknown } | null;
    return typeof body?.client_ref === 'string' ? body.client_ref : undefined;
  } catch {
    return null;
  }
}

/** The body as a JSON object; anything else throws (the door answers 400). */
export function bodyOf(rawBody: Buffer): Record<string, unknown> {
  const body = JSON.parse(rawBody.toString('utf8')) as unknown;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not a Vonage webhook');
  return body as Record<string, unknown>;
}

export const string = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

export function dateOf(value: unknown): Date | undefined {
  const text = string(value);
  const date = text ? new Date(text) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}

/** Vonage's `447700900000` as E.164 (`+447700900000`); an alphanumeric sender id stays as it is. */
export function e164Of(number: string): string {
  const digits = number.replace(/^\+/, '');
  return /^\d{6,15}$/.test(digits) ? `+${digits}` : number;
}

/** Vonage's status → ours; undefined for any we do not track. */
const STATUSES: Record<string, ReceiptStatus> = {
  submitted: 'sent',
  delivered: 'delivered',
  // WhatsApp's read receipt (never for SMS or MMS).
  read: 'read',
  // Refused by Vonage or the network (opted-out recipient, invalid number, spam, TTL expired), with an error.
  rejected: 'failed',
  // Vonage could not reach the network to hand it over.
  undeliverable: 'undelivered',
};

const AMOUNT = /^-?\d{1,12}(\.\d{1,12})?$/;
const CURRENCY = /^[A-Z]{3}$/;
/** A reference is an id, not prose. */
export const REF = /^[A-Za-z0-9._:-]{1,200}$/;

export function priceOf(usage: unknown): { amount: string; unit: string } | undefined {
  const { price, currency } = (usage ?? {}) as { price?: unknown; currency?: unknown };
  const value = typeof price === 'number' ? String(price) : price;
  return typeof value === 'string' && AMOUNT.test(value) && typeof currency === 'string' && CURRENCY.test(currency) ? { amount: value, unit: currency } : undefined;
}

/**
 * A failover sequence's place (`workflow: { workflow_id, item_number, items_total }`): an RCS message's
 * failover to SMS is item 2 of 2, with a `message_uuid` of its own.
 */
function failoverOf(body: Record<string, unknown>): { item: number; total: number } | undefined {
  const { item_number: item, items_total: total } = (body.workflow ?? {}) as { item_number?: unknown; items_total?: unknown };
  const number = (value: unknown) => (typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : undefined);
  const [i, t] = [number(item), number(total)];
  return i !== undefined && t !== undefined && i >= 1 && i <= t ? { item: i, total: t } : undefined;
}

/** A receipt from a status webhook; null for an inbound message or a status we do not track; throws for a body that is no JSON object. */
export function receiptOf(rawBody: Buffer, messageId: string | undefined): Receipt | null {
  const body = bodyOf(rawBody);
  const providerRef = string(body.message_uuid);
  const status = typeof body.status === 'string' ? STATUSES[body.status] : undefined;
  if (!providerRef || !REF.test(providerRef) || !status) return null;
  const failover = failoverOf(body);
  // RCS refused with a failover still to come says nothing yet: the SMS's receipts will.
  if (failover && failover.item < failover.total && (status === 'failed' || status === 'undelivered')) return null;
  const channel = string(body.channel);
  const rcsPair = failover !== undefined || channel === 'rcs';
  const delivery = rcsPair && channel ? { deliveredChannel: channel === 'rcs' ? ('rcs' as const) : ('sms' as const), ...(failover && failover.item > 1 && { fallback: true }) } : {};
  const clientRef = string(body.client_ref);
  const ourId = messageId ?? (clientRef && REF.test(clientRef) ? clientRef : undefined);
  const errorCode = status === 'undelivered' || status === 'failed' ? vonageErrorCode(body.error) : undefined;
  const price = priceOf(body.usage);
  const at = dateOf(body.timestamp);
  // The number it went out from: a receipt moves only a message sent from it.
  const sender = string(body.from) && e164Of(body.from as string);
  return { providerRef, status, ...(ourId ? { messageId: ourId } : {}), ...(sender?.startsWith('+') && { sender }), ...(errorCode ? { errorCode } : {}), ...(isVonageOptOutCode(errorCode) && { optOut: true }), ...(price ? { price } : {}), ...(at ? { at } : {}), ...delivery };
}

/**
 * Our number a webhook is about, read before its signature is checked: a status's `from`, an inbound
 * text's `to`. Undefined for a body that is no JSON object (the deployment's secret checks it, the parser refuses it).
 */
export function vonageCallbackNumber(rawBody: Buffer, kind: 'receipt' | 'inbound'): string | undefined {
  let body: Record<string, unknown>;
  try {
    body = bodyOf(rawBody);
  } catch {
    return undefined;
  }
  const number = string(kind === 'receipt' ? body.from : body.to);
  // An RCS message names our agent: its number's application signed it.
  if (body.channel === 'rcs' && number && REF.test(number)) return number;
  const e164 = number && e164Of(number);
  return e164?.startsWith('+') ? e164 : undefined;
}
