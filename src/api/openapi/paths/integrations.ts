import { CRMS } from '../../../domain';
import { CONNECTOR_EXAMPLE as connector, CrmConnectorList, CrmInboundAnswer, INTEGRATION_SCHEMAS } from '../../../use-cases/integrations/contract';
import type { ApiPart, OpenApiObject } from '../components';
import { inlineSchema } from '../from-zod';
import { badBody, badParameters, BUSINESS_NAME_SCHEMA, common, inBusiness, json, NO_ROUTE_EXAMPLE, operation, pathParameter, PREFIX, problem, ref, routeResponses } from '../components';
import { publicDoorLimited } from './public-door-limit';

const crmParameter = pathParameter('crm', 'The CRM: `hubspot`, `salesforce` or `pipedrive`.', { enum: [...CRMS] }, 'hubspot');
/** A path about one CRM's connector: the business, then the CRM. */
const crmPath = (operations: OpenApiObject) => inBusiness(operations, crmParameter);
const businessParameter = pathParameter(
  'business',
  'The business whose connector the CRM posts to (`{businessname}` of the API\'s paths).',
  BUSINESS_NAME_SCHEMA,
  'acme',
);

const inboundAnswer = inlineSchema(CrmInboundAnswer, 'output');

/** Every connector route's 403: a token bound to another business (production always binds tokens: JWT_BUSINESS_CLAIM). */
const CONNECTOR_FORBIDDEN = problem(
  403,
  'The token\'s `JWT_BUSINESS_CLAIM` claim does not name the business: a connector belongs to the whole business, so its routes need tokens bound to it.',
  { wrongBusiness: 'Token is not valid for this business' },
);

const unknownCrm = { unknownCrm: 'Unknown CRM zoho: one of hubspot, salesforce, pipedrive' };
const BAD_CRM_PATH = badParameters('The path is not valid.', {});
const NO_CONNECTOR = problem(404, 'No connector of the caller to this CRM.', { notFound: 'No hubspot connector', ...unknownCrm, ...NO_ROUTE_EXAMPLE });
/** The shared statuses an inbound route can answer besides its own 400 and 401. */
const INBOUND_LIMITED = publicDoorLimited(' Or more than `CRM_INBOUND_RATE_LIMIT_PER_MINUTE` accepted deliveries a minute to this business\'s door of this CRM (refused ones do not count). The CRM retries.');
const INBOUND_RESPONSES = { 413: common[413], 429: INBOUND_LIMITED, 500: common[500], 503: common[503] };
const tokenParameter = pathParameter('token', 'The connector\'s secret, as the `inbound_url` of its first PUT or of `rotate-inbound-token` gave it.', { type: 'string' }, 'q3Zk…');
const INVALID_TOKEN = 'Invalid inbound URL: post to the inbound_url the connector\'s PUT or POST /integrations/salesforce/rotate-inbound-token answered';
const BAD_TOKEN = problem(401, 'No connector, or not its secret.', { token: INVALID_TOKEN });
const salesforceConnector = {
  ...connector,
  crm: 'salesforce',
  settings: { organization_id: '00D000000000001AAA', instance_url: 'https://acme.my.salesforce.com' },
  secrets_set: ['access_token'],
  agent_map: {},
  inbound_url: 'https://crm.example.com/integrations/salesforce/acme/outbound-message/q3ZkP1x9yJm6Vt0bLr8sWc2nHd5aFe7gUiKo4TpQ1sA',
};

export const integrationsApi: ApiPart = {
  tags: [
    {
      name: 'Integrations',
      description:
        'Connectors to HubSpot, Salesforce and Pipedrive: a new contact or lead there becomes a client here, is assigned, and its owner is written back. ' +
        'The CRM posts to the public inbound routes, checked with the connector\'s credentials instead of a token. See `docs/integrations.md`.',
    },
  ],
  contracts: INTEGRATION_SCHEMAS,
  paths: {
    [`${PREFIX}/integrations`]: inBusiness({
      get: operation('listCrmConnectors', 'Integrations', 'The caller\'s connectors in this business, without their credentials', {
        description: 'One item per CRM the caller connected, in the order hubspot, salesforce, pipedrive, each as `GET /integrations/{crm}` shows it. A connector another user of the business set is not listed (its `PUT` is a 409).',
        responses: routeResponses(false, {
          200: json('The connectors.', inlineSchema(CrmConnectorList, 'output'), { example: { integrations: [connector] } }),
          403: CONNECTOR_FORBIDDEN,
        }),
      }),
    }),
    [`${PREFIX}/integrations/{crm}`]: crmPath({
      put: operation('putCrmConnector', 'Integrations', 'Connect a CRM (or change its connector)', {
        description:
          'One connector per business and CRM, owned by the user who set it: the clients it creates are that user\'s. The answer names `inbound_url`, the URL to paste into the CRM.',
        requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'CrmConnectorRequest') } } },
        responses: routeResponses(true, {
          200: json('Changed.', ref('schemas', 'CrmConnector'), { example: connector }),
          201: json('Created.', ref('schemas', 'CrmConnector'), { example: connector }),
          400: badBody('A field is not valid.', {
            unknownPolicy: 'Routing policy round-robin not found or not authorized',
            agentsAndPolicy: 'Invalid policy: name the agents to assign or a routing policy, not both',
            noAgents: 'Missing agents: name the agents to assign (or a routing policy)',
            unknownAgent: 'Invalid agents: no agent a9',
            missingSetting: 'Missing settings.client_secret: a hubspot connector needs client_secret, access_token',
            badSetting: 'Invalid settings.instance_url: must be an https URL on a Salesforce domain',
          }),
          404: problem(404, 'No such CRM.', { ...unknownCrm, ...NO_ROUTE_EXAMPLE }),
          403: CONNECTOR_FORBIDDEN,
          409: problem(409, 'Another user of the business set this connector.', { held: 'The business already has a hubspot connector, set by another user' }),
        }),
      }),
      get: operation('getCrmConnector', 'Integrations', 'The connector, without its credentials', {
        responses: routeResponses(false, { 200: json('The connector.', ref('schemas', 'CrmConnector'), { example: connector }), 400: BAD_CRM_PATH, 403: CONNECTOR_FORBIDDEN, 404: NO_CONNECTOR }),
      }),
      delete: operation('deleteCrmConnector', 'Integrations', 'Disconnect the CRM', {
        description: 'Its inbound route answers 401 from now on. Clients and assignments it made stay.',
        responses: routeResponses(false, { 204: { description: 'Removed.' }, 400: BAD_CRM_PATH, 403: CONNECTOR_FORBIDDEN, 404: NO_CONNECTOR }),
      }),
    }),
    [`${PREFIX}/integrations/{crm}/rotate-inbound-token`]: crmPath({
      post: operation('rotateCrmInboundToken', 'Integrations', 'A new secret for the Salesforce inbound URL', {
        description:
          'Salesforce signs nothing, so its inbound URL ends with a secret of the connector. This makes a new one and answers the connector with the new `inbound_url` (shown this once); ' +
          'the old URL is refused (401) at once by this API process, by the others within 30 seconds. Paste the new URL into the Outbound Message. HubSpot and Pipedrive: 404.',
        responses: routeResponses(false, {
          200: json('The connector, with its new inbound URL.', ref('schemas', 'CrmConnector'), { example: salesforceConnector }),
          400: BAD_CRM_PATH,
          404: problem(404, 'No connector of the caller to Salesforce, or another CRM.', {
            notFound: 'No salesforce connector',
            signed: 'No inbound token for hubspot: only Salesforce\'s inbound URL carries one (hubspot signs its requests)',
            ...unknownCrm,
            ...NO_ROUTE_EXAMPLE,
          }),
        }),
      }),
    }),
    [`${PREFIX}/integrations/{crm}/sync`]: crmPath({
      post: operation('syncCrmConnector', 'Integrations', 'Catch up with the CRM now', {
        description:
          'Lists through the CRM\'s API the records it created in the last 24 hours (at most 1,000, oldest first) and routes each one no creation was recorded for ' +
          '(a webhook lost, or given up), once; hands events left unhandled for 5 minutes to their workflows again. The same sweep runs every hour for every connector.',
        responses: routeResponses(false, {
          200: json('Swept.', ref('schemas', 'CrmSyncOutcome'), { example: { listed: 12, recorded: 1, resumed: 0 } }),
          400: BAD_CRM_PATH,
          403: CONNECTOR_FORBIDDEN,
          404: NO_CONNECTOR,
        }),
      }),
    }),
    '/integrations/hubspot/{business}/webhook': {
      parameters: [businessParameter],
      post: {
        operationId: 'receiveHubspotWebhook',
        tags: ['Integrations'],
        security: [],
        summary: 'HubSpot webhooks (the app\'s target URL)',
        description:
          'Signed with `X-HubSpot-Signature-v3` (base64 HMAC-SHA256 with the app\'s client secret over method, full URL, raw body and `X-HubSpot-Request-Timestamp`), ' +
          'at most 5 minutes old. An array of up to 100 events: `contact.creation` routes the contact, `contact.propertyChange` of `hubspot_owner_id` is a change of owner; ' +
          'others are acknowledged and ignored. Answered once recorded (each `eventId` once); the lead is processed afterwards.',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'array', maxItems: 100, items: { type: 'object' } } } } },
        responses: {
          200: json('Recorded.', inboundAnswer, { example: { received: 1, recorded: 1 } }),
          400: problem(400, 'Not an array of HubSpot events.', { notArray: 'Invalid body: must be an array of 1 to 100 HubSpot events', malformedJson: { type: '/problems/malformed-json', detail: 'Malformed JSON body' } }),
          401: problem(401, 'No connector, or a signature that does not check out or is too old.', { signature: 'Invalid signature' }),
          ...INBOUND_RESPONSES,
        },
      },
    },
    '/integrations/salesforce/{business}/outbound-message': {
      parameters: [businessParameter],
      post: {
        operationId: 'refuseSalesforceOutboundMessageWithoutToken',
        tags: ['Integrations'],
        security: [],
        summary: 'The Salesforce inbound URL without its secret: refused',
        description: 'The URL of before the secret. Answered 401 without reading the body; use `…/outbound-message/{token}`.',
        responses: { 401: BAD_TOKEN, 429: INBOUND_LIMITED, 500: common[500], 503: common[503] },
      },
    },
    '/integrations/salesforce/{business}/outbound-message/{token}': {
      parameters: [businessParameter, tokenParameter],
      post: {
        operationId: 'receiveSalesforceOutboundMessage',
        tags: ['Integrations'],
        security: [],
        summary: 'Salesforce Outbound Messages (the endpoint URL)',
        description:
          'A SOAP Outbound Message of up to 100 `Lead` notifications from the org the connector names (`OrganizationId`). The URL\'s last segment is the connector\'s secret, ' +
          'compared in constant time before the body is read. The envelope is read by a non-validating XML parser: a DOCTYPE, an entity beyond XML\'s five, a processing instruction ' +
          'other than the XML declaration, or more than 100 notifications are a 400. Each notification `Id` is recorded once; ' +
          'the answer is the SOAP acknowledgement `<Ack>true</Ack>`, after which Salesforce stops retrying. At most `CRM_INBOUND_RATE_LIMIT_PER_MINUTE` accepted deliveries a minute per business (429), besides the budgets of the unauthenticated doors.',
        requestBody: { required: true, content: { 'text/xml': { schema: { type: 'string' } } } },
        responses: {
          200: { description: 'Recorded and acknowledged.', content: { 'text/xml': { schema: { type: 'string' } } } },
          400: problem(400, 'Not an Outbound Message of Lead notifications.', {
            notifications: 'Invalid body: must be an Outbound Message of 1 to 100 notifications: more than 100 notifications',
            doctype: 'Invalid body: must be an Outbound Message of 1 to 100 notifications: a DOCTYPE is not accepted',
          }),
          401: problem(401, 'No connector, not its secret, or another organization.', { token: INVALID_TOKEN, signature: 'Invalid signature' }),
          ...INBOUND_RESPONSES,
        },
      },
    },
    '/integrations/pipedrive/{business}/webhook': {
      parameters: [businessParameter],
      post: {
        operationId: 'receivePipedriveWebhook',
        tags: ['Integrations'],
        security: [],
        summary: 'Pipedrive webhooks v2 (the endpoint URL)',
        description:
          'Authenticated by the HTTP Basic credentials set on the webhook (the connector\'s `webhook_user` and `webhook_password`). `create` of a `person` or `lead` routes it; ' +
          'a `change` of its `owner_id` is a change of owner; anything else is acknowledged and ignored.',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: {
          200: json('Recorded.', inboundAnswer, { example: { received: 1, recorded: 1 } }),
          400: problem(400, 'Not a Pipedrive webhook.', { shape: 'Invalid body: must be a Pipedrive webhook (v2) with meta.action and meta.entity' }),
          401: problem(401, 'No connector, or other credentials.', { signature: 'Invalid signature' }),
          ...INBOUND_RESPONSES,
        },
      },
    },
  },
};
