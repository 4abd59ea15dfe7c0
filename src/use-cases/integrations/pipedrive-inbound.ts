import { z } from 'zod';
import { verifyBasicAuth } from '../../crm';
import { Invalid } from '../errors';
import { connectorForInbound, invalidSignature, jsonBodyOf, recordAndHandOver, type InboundDeps, type Recorded } from './inbound';

/*
 * Pipedrive webhooks v2: authenticated only by the HTTP Basic credentials set on the webhook (compared
 * in constant time). `create` of a `person` or a `lead` routes it; a `change` whose `owner_id` differs
 * from before is a change of owner. A delivery is recognised by entity, id, action and `meta.timestamp`
 * (the event's time, the same on each of Pipedrive's 3 retries).
 */

const entityId = z.union([z.number().int().nonnegative(), z.string().regex(/^[A-Za-z0-9-]{1,64}$/)]).transform(String);
const pipedriveBody = z.object({
  meta: z.object({
    action: z.string().max(50),
    entity: z.string().max(50),
    id: z.union([z.number(), z.string().max(100)]).transform(String).optional(),
    entity_id: entityId.optional(),
    timestamp: z.string().max(50).optional(),
    correlation_id: z.string().max(100).optional(),
  }),
  data: z.record(z.string(), z.unknown()).nullish(),
  previous: z.record(z.string(), z.unknown()).nullish(),
});

export async function receivePipedriveWebhook(deps: InboundDeps, business: string, authorization: string | undefined, rawBody: Buffer): Promise<Recorded> {
  const { connector, secrets } = await connectorForInbound(deps, business, 'pipedrive');
  const user = (connector.settings as Record<string, string>).webhook_user;
  if (!verifyBasicAuth(authorization, user ?? '', secrets.webhook_password ?? '')) throw invalidSignature();
  const body = jsonBodyOf(rawBody);
  const parsed = pipedriveBody.safeParse(body);
  if (!parsed.success) throw new Invalid('Invalid body: must be a Pipedrive webhook (v2) with meta.action and meta.entity');
  const { meta, data, previous } = parsed.data;
  const recordId = meta.entity_id ?? (data?.id !== undefined ? String(data.id) : undefined);
  if (!recordId || !['person', 'lead'].includes(meta.entity)) return recordAndHandOver(deps, business, 'pipedrive', []);
  const eventKey = `${meta.entity}/${recordId}/${meta.action}/${meta.timestamp ?? meta.correlation_id ?? ''}`;
  const occurredAt = meta.timestamp && !Number.isNaN(Date.parse(meta.timestamp)) ? new Date(meta.timestamp) : null;
  if (meta.action === 'create') return recordAndHandOver(deps, business, 'pipedrive', [{ eventKey, recordId, kind: 'created', ownerValue: null, occurredAt }]);
  const owner = data?.owner_id;
  if (meta.action === 'change' && owner !== undefined && previous && 'owner_id' in previous && previous.owner_id !== owner) {
    return recordAndHandOver(deps, business, 'pipedrive', [{ eventKey, recordId, kind: 'owner_changed', ownerValue: owner === null ? null : String(owner), occurredAt }]);
  }
  return recordAndHandOver(deps, business, 'pipedrive', []);
}
