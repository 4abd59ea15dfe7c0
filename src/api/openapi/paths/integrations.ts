import { CRMS } from '../../../domain';
import { INTEGRATION_SCHEMAS } from '../../../use-cases/integrations/contract';
import { INTEGRATION_OPERATIONS as ops, INTEGRATIONS_TAG } from '../../../use-cases/integrations/operations';
import type { ApiPart, OpenApiObject } from '../components';
import { BUSINESS_NAME_SCHEMA, common, inBusiness, pathParameter, PREFIX } from '../components';
import { operationOf, type Wiring } from '../operation';
import { publicDoorLimited } from './public-door-limit';

const crmParameter = pathParameter('crm', 'The CRM: `hubspot`, `salesforce` or `pipedrive`.', { enum: [...CRMS] }, 'hubspot');
/** A path about one CRM's connector: the business, then the CRM. */
const crmPath = (operations: OpenApiObject) => inBusiness(operations, crmParameter);
const businessParameter = pathParameter('business', 'The business whose connector the CRM posts to (`{businessname}` of the API\'s paths).', BUSINESS_NAME_SCHEMA, 'acme');
const tokenParameter = pathParameter('token', 'The connector\'s secret, as the `inbound_url` of its first PUT or of `rotate-inbound-token` gave it.', { type: 'string' }, 'q3Zk…');

/** The shared statuses an inbound route can answer besides its own 400 and 401. */
const INBOUND_LIMITED = publicDoorLimited(' Or more than `CRM_INBOUND_RATE_LIMIT_PER_MINUTE` accepted deliveries a minute to this business\'s door of this CRM (refused ones do not count). The CRM retries.');
const INBOUND_RESPONSES = { 413: common[413], 429: INBOUND_LIMITED, 500: common[500], 503: common[503] };
const op = (operationId: keyof typeof ops, wiring: Wiring = {}) => operationOf(operationId, 'Integrations', ops[operationId], wiring);
/** A CRM's door: no token, the connector's credentials. */
const inbound = (operationId: keyof typeof ops, wiring: Wiring) => op(operationId, { security: [], shared: INBOUND_RESPONSES, ...wiring });
const jsonBody = (schema: OpenApiObject) => ({ required: true, content: { 'application/json': { schema } } });
const xml = { 'text/xml': { schema: { type: 'string' } } };

export const integrationsApi: ApiPart = {
  tags: [{ name: 'Integrations', description: INTEGRATIONS_TAG }],
  contracts: INTEGRATION_SCHEMAS,
  paths: {
    [`${PREFIX}/integrations`]: inBusiness({ get: op('listCrmConnectors') }),
    [`${PREFIX}/integrations/{crm}`]: crmPath({ put: op('putCrmConnector', { body: true }), get: op('getCrmConnector'), delete: op('deleteCrmConnector') }),
    [`${PREFIX}/integrations/{crm}/rotate-inbound-token`]: crmPath({ post: op('rotateCrmInboundToken') }),
    [`${PREFIX}/integrations/{crm}/sync`]: crmPath({ post: op('syncCrmConnector') }),
    '/integrations/hubspot/{business}/webhook': {
      parameters: [businessParameter],
      post: inbound('receiveHubspotWebhook', { requestBody: jsonBody({ type: 'array', maxItems: 100, items: { type: 'object' } }) }),
    },
    '/integrations/salesforce/{business}/outbound-message': {
      parameters: [businessParameter],
      post: inbound('refuseSalesforceOutboundMessageWithoutToken', { shared: { 429: INBOUND_LIMITED, 500: common[500], 503: common[503] } }),
    },
    '/integrations/salesforce/{business}/outbound-message/{token}': {
      parameters: [businessParameter, tokenParameter],
      post: inbound('receiveSalesforceOutboundMessage', {
        requestBody: { required: true, content: xml },
        responses: { 200: { description: ops.receiveSalesforceOutboundMessage.responses[200].description, content: xml } },
      }),
    },
    '/integrations/pipedrive/{business}/webhook': {
      parameters: [businessParameter],
      post: inbound('receivePipedriveWebhook', { requestBody: jsonBody({ type: 'object' }) }),
    },
  },
};
