import { badBody, badParameters, notFound, operations } from '../input/operation-docs';
import { CONNECTOR_EXAMPLE as connector, CrmConnector, CrmConnectorList, CrmConnectorRequest, CrmInboundAnswer, CrmSyncOutcome } from './contract';

/* What the document says of the connectors' routes and the CRMs' inbound doors (src/use-cases/input/operation-docs.ts). */

export const INTEGRATIONS_TAG =
  'Connectors to HubSpot, Salesforce and Pipedrive: a new contact or lead there becomes a client here, is assigned, and its owner is written back. ' +
  'The CRM posts to the public inbound routes, checked with the connector\'s credentials instead of a token. See `docs/integrations.md`.';

/** Every connector route's 403: a token bound to another business (production always binds tokens: JWT_BUSINESS_CLAIM). */
const CONNECTOR_FORBIDDEN = {
  description: 'The token\'s `JWT_BUSINESS_CLAIM` claim does not name the business: a connector belongs to the whole business, so its routes need tokens bound to it.',
  examples: { wrongBusiness: 'Token is not valid for this business' },
};
const unknownCrm = { unknownCrm: 'Unknown CRM zoho: one of hubspot, salesforce, pipedrive' };
const BAD_CRM_PATH = badParameters('The path is not valid.', {});
const NO_CONNECTOR = notFound('No connector of the caller to this CRM.', { notFound: 'No hubspot connector', ...unknownCrm });
export const INVALID_TOKEN = 'Invalid inbound URL: post to the inbound_url the connector\'s PUT or POST /integrations/salesforce/rotate-inbound-token answered';
const RECORDED = { description: 'Recorded.', schema: CrmInboundAnswer, example: { received: 1, recorded: 1 } };
const salesforceConnector = {
  ...connector,
  crm: 'salesforce',
  settings: { organization_id: '00D000000000001AAA', instance_url: 'https://acme.my.salesforce.com' },
  secrets_set: ['access_token'],
  agent_map: {},
  inbound_url: 'https://crm.example.com/integrations/salesforce/acme/outbound-message/q3ZkP1x9yJm6Vt0bLr8sWc2nHd5aFe7gUiKo4TpQ1sA',
};

export const INTEGRATION_OPERATIONS = operations({
  listCrmConnectors: {
    summary: 'The caller\'s connectors in this business, without their credentials',
    description: 'One item per CRM the caller connected, in the order hubspot, salesforce, pipedrive, each as `GET /integrations/{crm}` shows it. A connector another user of the business set is not listed (its `PUT` is a 409).',
    responses: { 200: { description: 'The connectors.', schema: CrmConnectorList, example: { integrations: [connector] } }, 403: CONNECTOR_FORBIDDEN },
  },
  putCrmConnector: {
    summary: 'Connect a CRM (or change its connector)',
    description: 'One connector per business and CRM, owned by the user who set it: the clients it creates are that user\'s. The answer names `inbound_url`, the URL to paste into the CRM.',
    body: { schema: CrmConnectorRequest },
    responses: {
      200: { description: 'Changed.', schema: CrmConnector, example: connector },
      201: { description: 'Created.', schema: CrmConnector, example: connector },
      400: badBody('A field is not valid.', {
        unknownPolicy: 'Routing policy round-robin not found or not authorized',
        agentsAndPolicy: 'Invalid policy: name the agents to assign or a routing policy, not both',
        noAgents: 'Missing agents: name the agents to assign (or a routing policy)',
        unknownAgent: 'Invalid agents: no agent a9',
        missingSetting: 'Missing settings.client_secret: a hubspot connector needs client_secret, access_token',
        badSetting: 'Invalid settings.instance_url: must be an https URL on a Salesforce domain',
      }),
      403: CONNECTOR_FORBIDDEN,
      404: notFound('No such CRM.', unknownCrm),
      409: { description: 'Another user of the business set this connector.', examples: { held: 'The business already has a hubspot connector, set by another user' } },
    },
  },
  getCrmConnector: {
    summary: 'The connector, without its credentials',
    responses: { 200: { description: 'The connector.', schema: CrmConnector, example: connector }, 400: BAD_CRM_PATH, 403: CONNECTOR_FORBIDDEN, 404: NO_CONNECTOR },
  },
  deleteCrmConnector: {
    summary: 'Disconnect the CRM',
    description: 'Its inbound route answers 401 from now on. Clients and assignments it made stay.',
    responses: { 204: { description: 'Removed.' }, 400: BAD_CRM_PATH, 403: CONNECTOR_FORBIDDEN, 404: NO_CONNECTOR },
  },
  rotateCrmInboundToken: {
    summary: 'A new secret for the Salesforce inbound URL',
    description:
      'Salesforce signs nothing, so its inbound URL ends with a secret of the connector. This makes a new one and answers the connector with the new `inbound_url` (shown this once); ' +
      'the old URL is refused (401) at once by this API process, by the others within 30 seconds. Paste the new URL into the Outbound Message. HubSpot and Pipedrive: 404.',
    responses: {
      200: { description: 'The connector, with its new inbound URL.', schema: CrmConnector, example: salesforceConnector },
      400: BAD_CRM_PATH,
      404: notFound('No connector of the caller to Salesforce, or another CRM.', {
        notFound: 'No salesforce connector',
        signed: 'No inbound token for hubspot: only Salesforce\'s inbound URL carries one (hubspot signs its requests)',
        ...unknownCrm,
      }),
    },
  },
  syncCrmConnector: {
    summary: 'Catch up with the CRM now',
    description:
      'Lists through the CRM\'s API the records it created in the last 24 hours (at most 1,000, oldest first) and routes each one no creation was recorded for ' +
      '(a webhook lost, or given up), once; hands events left unhandled for 5 minutes to their workflows again. The same sweep runs every hour for every connector.',
    responses: {
      200: { description: 'Swept.', schema: CrmSyncOutcome, example: { listed: 12, recorded: 1, resumed: 0 } },
      400: BAD_CRM_PATH,
      403: CONNECTOR_FORBIDDEN,
      404: NO_CONNECTOR,
    },
  },
  receiveHubspotWebhook: {
    summary: 'HubSpot webhooks (the app\'s target URL)',
    description:
      'Signed with `X-HubSpot-Signature-v3` (base64 HMAC-SHA256 with the app\'s client secret over method, full URL, raw body and `X-HubSpot-Request-Timestamp`), ' +
      'at most 5 minutes old. An array of up to 100 events: `contact.creation` routes the contact, `contact.propertyChange` of `hubspot_owner_id` is a change of owner; ' +
      'others are acknowledged and ignored. Answered once recorded (each `eventId` once); the lead is processed afterwards.',
    responses: {
      200: RECORDED,
      400: { description: 'Not an array of HubSpot events.', examples: { notArray: 'Invalid body: must be an array of 1 to 100 HubSpot events', malformedJson: { type: '/problems/malformed-json', detail: 'Malformed JSON body' } } },
      401: { description: 'No connector, or a signature that does not check out or is too old.', examples: { signature: 'Invalid signature' } },
    },
  },
  refuseSalesforceOutboundMessageWithoutToken: {
    summary: 'The Salesforce inbound URL without its secret: refused',
    description: 'The URL of before the secret. Answered 401 without reading the body; use `…/outbound-message/{token}`.',
    responses: { 401: { description: 'No connector, or not its secret.', examples: { token: INVALID_TOKEN } } },
  },
  receiveSalesforceOutboundMessage: {
    summary: 'Salesforce Outbound Messages (the endpoint URL)',
    description:
      'A SOAP Outbound Message of up to 100 `Lead` notifications from the org the connector names (`OrganizationId`). The URL\'s last segment is the connector\'s secret, ' +
      'compared in constant time before the body is read. The envelope is read by a non-validating XML parser: a DOCTYPE, an entity beyond XML\'s five, a processing instruction ' +
      'other than the XML declaration, or more than 100 notifications are a 400. Each notification `Id` is recorded once; ' +
      'the answer is the SOAP acknowledgement `<Ack>true</Ack>`, after which Salesforce stops retrying. At most `CRM_INBOUND_RATE_LIMIT_PER_MINUTE` accepted deliveries a minute per business (429), besides the budgets of the unauthenticated doors.',
    responses: {
      200: { description: 'Recorded and acknowledged.' },
      400: {
        description: 'Not an Outbound Message of Lead notifications.',
        examples: {
          notifications: 'Invalid body: must be an Outbound Message of 1 to 100 notifications: more than 100 notifications',
          doctype: 'Invalid body: must be an Outbound Message of 1 to 100 notifications: a DOCTYPE is not accepted',
        },
      },
      401: { description: 'No connector, not its secret, or another organization.', examples: { token: INVALID_TOKEN, signature: 'Invalid signature' } },
    },
  },
  receivePipedriveWebhook: {
    summary: 'Pipedrive webhooks v2 (the endpoint URL)',
    description:
      'Authenticated by the HTTP Basic credentials set on the webhook (the connector\'s `webhook_user` and `webhook_password`). `create` of a `person` or `lead` routes it; ' +
      'a `change` of its `owner_id` is a change of owner; anything else is acknowledged and ignored.',
    responses: {
      200: RECORDED,
      400: { description: 'Not a Pipedrive webhook.', examples: { shape: 'Invalid body: must be a Pipedrive webhook (v2) with meta.action and meta.entity' } },
      401: { description: 'No connector, or other credentials.', examples: { signature: 'Invalid signature' } },
    },
  },
});
