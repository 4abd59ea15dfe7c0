import { WEBHOOK_SCHEMAS } from '../../../use-cases/webhooks/contract';
import { EVENT_OPERATIONS } from '../../../use-cases/events/operations';
import { WEBHOOK_OPERATIONS as ops, WEBHOOKS_TAG } from '../../../use-cases/webhooks/operations';
import type { ApiPart } from '../components';
import { idParameter, inBusiness, PREFIX } from '../components';
import { operationOf, type Wiring } from '../operation';

const webhookIdParameter = idParameter('The webhook\'s id. One of another user or business is the same 404 as a missing one.', '3d4c1b2a-5e6f-4a7b-8c9d-0e1f2a3b4c5d');
const op = (operationId: keyof typeof ops, wiring: Wiring = {}) => operationOf(operationId, 'Webhooks', ops[operationId], wiring);
const SIGNATURE_HEADERS = [
  { name: 'webhook-id', in: 'header', required: true, description: 'The event\'s id: the same on every retry.', schema: { type: 'string', format: 'uuid' } },
  { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix seconds when this attempt was signed.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  { name: 'webhook-signature', in: 'header', required: true, schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' } },
];

export const webhooksApi: ApiPart = {
  tags: [{ name: 'Webhooks', description: WEBHOOKS_TAG }],
  contracts: WEBHOOK_SCHEMAS,
  paths: {
    [`${PREFIX}/webhooks`]: inBusiness({ post: op('createWebhook', { body: true }), get: op('listWebhooks') }),
    [`${PREFIX}/webhooks/{_id}`]: inBusiness({ get: op('getWebhook'), delete: op('deleteWebhook', { body: true }) }, webhookIdParameter),
    [`${PREFIX}/webhooks/{_id}/rotate-secret`]: inBusiness({ post: op('rotateWebhookSecret', { body: true }) }, webhookIdParameter),
    [`${PREFIX}/webhooks/{_id}/deliveries`]: inBusiness(
      { get: op('listWebhookDeliveries', { parameters: [{ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } }] }) },
      webhookIdParameter,
    ),
  },
  webhooks: { event: { post: operationOf('receiveEvent', 'Webhooks', EVENT_OPERATIONS.receiveEvent, { security: [], shared: {}, parameters: SIGNATURE_HEADERS }) } },
};
