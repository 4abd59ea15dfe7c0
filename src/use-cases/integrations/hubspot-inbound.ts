import { z } from 'zod';
import type { NewInboundEvent } from '../../db/crm-inbound-events';
import { verifyHubspotSignature } from '../../crm';
import { Invalid } from '../errors';
import { connectorForInbound, invalidSignature, jsonBodyOf, recordAndHandOver, type InboundDeps, type Recorded } from './inbound';

/*
 * HubSpot's webhooks (v3 signatures): an array of up to 100 events. `contact.creation` routes the
 * contact; `contact.propertyChange` of `hubspot_owner_id` is a change of owner there (ours echoing
 * back, or a person's). Other subscriptions are acknowledged and ignored.
 */

export const MAX_HUBSPOT_EVENTS = 100;
const OWNER_PROPERTY = 'hubspot_owner_id';

export interface SignedRequest {
  method: string;
  /** The full URL HubSpot called. */
  uri: string;
  rawBody: Buffer;
  headers: Record<string, string | undefined>;
}

const hubspotId = z.union([z.number().int().nonnegative(), z.string().regex(/^\d{1,20}$/)]).transform(String);
const hubspotEvent = z.object({
  eventId: hubspotId,
  subscriptionType: z.string().max(100),
  objectId: hubspotId,
  propertyName: z.string().max(200).nullish(),
  propertyValue: z.string().max(200).nullish(),
  occurredAt: z.number().int().nonnegative().nullish(),
});
const hubspotBody = z.array(z.unknown()).min(1).max(MAX_HUBSPOT_EVENTS);

/** The events of the delivery this service acts on; an unreadable one is a 400 (HubSpot retries, so nothing is half recorded). */
function eventsOf(rawBody: Buffer): NewInboundEvent[] {
  const body = jsonBodyOf(rawBody);
  const list = hubspotBody.safeParse(body);
  if (!list.success) throw new Invalid(`Invalid body: must be an array of 1 to ${MAX_HUBSPOT_EVENTS} HubSpot events`);
  return list.data.flatMap((item, i) => {
    const parsed = hubspotEvent.safeParse(item);
    if (!parsed.success) throw new Invalid(`Invalid event ${i}: ${parsed.error.issues[0].path.join('.') || 'event'} ${parsed.error.issues[0].message}`);
    const event = parsed.data;
    const occurredAt = event.occurredAt ? new Date(event.occurredAt) : null;
    const base = { eventKey: event.eventId, recordId: event.objectId, occurredAt };
    if (event.subscriptionType === 'contact.creation') return [{ ...base, kind: 'created', ownerValue: null }];
    if (event.subscriptionType === 'contact.propertyChange' && event.propertyName === OWNER_PROPERTY) return [{ ...base, kind: 'owner_changed', ownerValue: event.propertyValue || null }];
    return [];
  });
}

/** Checks the signature with the business's app secret, then records the events and hands them over. */
export async function receiveHubspotWebhook(deps: InboundDeps, business: string, request: SignedRequest): Promise<Recorded> {
  const { secrets } = await connectorForInbound(deps, business, 'hubspot');
  const signed = verifyHubspotSignature(secrets.client_secret, {
    method: request.method,
    uri: request.uri,
    rawBody: request.rawBody,
    signature: request.headers['x-hubspot-signature-v3'],
    timestamp: request.headers['x-hubspot-request-timestamp'],
  });
  if (!signed) throw invalidSignature();
  return recordAndHandOver(deps, business, 'hubspot', eventsOf(request.rawBody));
}
