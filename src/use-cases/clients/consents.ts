import { consentsOf, putConsent, withdrawConsent } from '../../db/client-consents';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { consentView } from '../../views/consent';
import { Invalid, NotFound } from '../errors';
import { isBlank } from '../input/validation';
import { fieldsOfSchema, refuseUnknownFields, type Fields } from '../input/known-fields';
import { ConsentRecord, MAX_SOURCE_LENGTH } from './contract';
import { findOwnedClient } from './owned-client';

/** The channels a client's consent is kept for: WhatsApp needs an opt-in before a business starts a conversation. */
const CONSENT_CHANNELS = ['whatsapp'];
/** A consent's date may be ahead of the server's clock by this much (clocks differ), not more. */
const FUTURE_SKEW_MS = 5 * 60_000;
const CONSENT_FIELDS = fieldsOfSchema(ConsentRecord) as Fields;

function channelOf(channel: string): string {
  if (!CONSENT_CHANNELS.includes(channel)) throw new NotFound('Consent channel not found: consents are kept for whatsapp');
  return channel;
}

/** `PUT /clients/{_id}/consents/{channel}` `{ source, at? }`: where and when the client opted in (at: now when not given). */
export async function putConsentRequest(prisma: Prisma, scope: Scope, clientId: string, channel: string, body: unknown, now = new Date()) {
  const client = await findOwnedClient(prisma, scope, clientId);
  const on = channelOf(channel);
  const fields = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const { source, at } = fields;
  if (typeof source !== 'string' || isBlank(source) || source.length > MAX_SOURCE_LENGTH) {
    throw new Invalid(`Invalid source: must be a non-empty string of at most ${MAX_SOURCE_LENGTH} characters saying where the client opted in`);
  }
  let when = now;
  if (at !== undefined && at !== null) {
    when = typeof at === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(at) ? new Date(at) : new Date(NaN);
    if (Number.isNaN(when.getTime()) || when.getTime() > now.getTime() + FUTURE_SKEW_MS) throw new Invalid('Invalid at: must be an ISO 8601 date-time, not in the future');
  }
  refuseUnknownFields(fields, CONSENT_FIELDS);
  return consentView(await putConsent(prisma, { clientPk: client.pk, channel: on, source: source.trim(), at: when }));
}

export async function listConsentsRequest(prisma: Prisma, scope: Scope, clientId: string) {
  const client = await findOwnedClient(prisma, scope, clientId);
  return { consents: (await consentsOf(prisma, client.pk)).map(consentView) };
}

/** The client withdrew it: a template may no longer start a conversation. */
export async function withdrawConsentRequest(prisma: Prisma, scope: Scope, clientId: string, channel: string): Promise<void> {
  const client = await findOwnedClient(prisma, scope, clientId);
  if (!(await withdrawConsent(prisma, client.pk, channelOf(channel)))) throw new NotFound('Consent not found');
}
