import { z } from 'zod';
import { CRMS } from '../../domain';
import { DateTime } from '../input/contract';
import { resourceId } from '../input/validation';

/*
 * The contract of the CRM connectors: the body of `PUT /integrations/{crm}` (parseBody reads it with
 * this schema; request.ts adds the checks between fields and of each setting) and the views of a
 * connector, of a sweep and of an inbound delivery. The OpenAPI document is generated from them.
 */

export const MAX_CONNECTOR_AGENTS = 100;
export const MAX_AGENT_MAP_ENTRIES = 1000;
const CRM_OWNER_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

const SETTINGS_DESCRIPTION =
  'The CRM\'s settings. A setting left out keeps its stored value. Credentials are encrypted at rest (AES-256-GCM under `SECRETS_KEY`) and never answered back nor logged; ' +
  'the others are shown back. HubSpot: `client_secret`, `access_token` (a private app\'s token, or an OAuth access token), `app_id`. ' +
  'Salesforce: `organization_id` (00D…), `instance_url` (https on a Salesforce domain: *.salesforce.com, *.force.com, *.salesforce-setup.com, *.cloudforce.com, *.database.com, or one SALESFORCE_ALLOWED_DOMAINS adds; `login_url` alike), `access_token`, optionally `refresh_token`, `client_id`, `client_secret`, `login_url` to refresh it. ' +
  'Pipedrive: `api_token`, `webhook_user`, `webhook_password` (the HTTP Basic credentials set on the webhook).';

/** request.ts checks each setting's value and the map's size (their own 400 texts); the document says what they must be. */
const STRING_VALUES = { additionalProperties: { type: 'string' } };

export const CrmConnectorRequest = z
  .object({
    agents: z
      .array(resourceId, { error: 'must be an array of agent ids' })
      .min(1, 'must name at least one agent')
      .max(MAX_CONNECTOR_AGENTS, `must name at most ${MAX_CONNECTOR_AGENTS} agents`)
      .nullish()
      .meta({ description: 'The caller\'s agents to assign to each new lead, as assign-agents does.' }),
    policy: resourceId.nullish().meta({
      description: 'One of the caller\'s routing policies: each new lead is routed by it (POST /clients/{_id}/route, once per CRM record) and the routed agent\'s CRM owner written back. Give `agents` or `policy`, not both.',
    }),
    settings: z.record(z.string(), z.unknown(), { error: 'must be an object' }).meta(STRING_VALUES).nullish().meta({ description: SETTINGS_DESCRIPTION }),
    agent_map: z
      .record(z.string().regex(CRM_OWNER_ID, 'keys must be CRM owner ids of 1-64 characters of A-Z a-z 0-9 _ . : -'), resourceId, { error: 'must be an object of CRM owner id to agent id' })
      .meta({ maxProperties: MAX_AGENT_MAP_ENTRIES })
      .nullish()
      .meta({ description: 'CRM owner (or user) id → the caller\'s agent `_id`.' }),
    follow_crm_owner: z.boolean({ error: 'must be true or false' }).nullish().meta({ description: 'Default false.' }),
  })
  .meta({
    id: 'CrmConnectorRequest',
    description: 'A field not described here is a 400 `Unknown field: {name}`.',
    examples: [{ agents: ['a1'], settings: { client_secret: '…', access_token: 'pat-na1-…' }, agent_map: { '90210': 'a1' } }],
  });

const CONNECTED_AT = '2026-11-25T20:00:00.000Z';
/** A HubSpot connector, as the document shows it. */
export const CONNECTOR_EXAMPLE = {
  crm: 'hubspot', agents: ['a1'], policy: null, settings: { app_id: '1234567' }, secrets_set: ['access_token', 'client_secret'], agent_map: { '90210': 'a1' },
  follow_crm_owner: false, inbound_url: 'https://crm.example.com/integrations/hubspot/acme/webhook', created_at: CONNECTED_AT, updated_at: CONNECTED_AT,
};

export const CrmConnector = z
  .strictObject({
    crm: z.enum(CRMS),
    agents: z.array(z.string()).meta({ description: 'Whom a new lead is assigned to (all of them; the first one\'s CRM owner id is written back).' }),
    policy: z.string().nullable().meta({ description: 'The routing policy each new lead is routed by (then `agents` is empty), or null.' }),
    settings: z.record(z.string(), z.string()).meta({ description: 'The settings that are not credentials.' }),
    secrets_set: z.array(z.string()).meta({ description: 'The names of the credentials stored (never their values).' }),
    agent_map: z.record(z.string(), z.string()).meta({ description: 'CRM owner (or user) id → agent `_id`.' }),
    follow_crm_owner: z.boolean().meta({ description: 'Whether a person\'s change of owner in the CRM moves the assignment here too.' }),
    inbound_url: z.string().meta({
      description:
        'What to paste into the CRM: `<PUBLIC_BASE_URL>/integrations/{crm}/{business}/webhook`. Salesforce: `…/outbound-message/{token}`, whose last segment is the connector\'s secret: ' +
        'it is stored hashed, so only the answer of the PUT that made it (the first) and of `rotate-inbound-token` show it; other answers show `{token}` in its place.',
    }),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'CrmConnector', examples: [CONNECTOR_EXAMPLE] });

export const CrmConnectorList = z.strictObject({ integrations: z.array(CrmConnector) });

export const CrmSyncOutcome = z
  .strictObject({
    listed: z.int().meta({ description: 'Records the CRM created in the last 24 hours.' }),
    recorded: z.int().meta({ description: 'Of them, the ones no creation was recorded for: routed now.' }),
    resumed: z.int().meta({ description: 'Records whose unhandled events were handed to their workflows again.' }),
  })
  .meta({ id: 'CrmSyncOutcome' });

/** A CRM's delivery, recorded (not a component: the answer of the inbound routes). */
export const CrmInboundAnswer = z.strictObject({
  received: z.int().meta({ description: 'Events in the delivery this service acts on.' }),
  recorded: z.int().meta({ description: 'Of them, the ones not seen before (a repeat delivery records none).' }),
});

export const INTEGRATION_SCHEMAS = { requests: [CrmConnectorRequest], responses: [CrmConnector, CrmSyncOutcome] };
