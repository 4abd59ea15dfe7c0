import type { CrmConnector } from '../generated/prisma/client';

/** Where the CRM posts to this service, for each CRM: the URL to paste into it. */
export const CRM_INBOUND_PATHS = { hubspot: 'webhook', salesforce: 'outbound-message', pipedrive: 'webhook' } as const;

/** What stands for the secret in a Salesforce inbound URL once the answer that made it is gone: it is stored hashed. */
export const INBOUND_TOKEN_PLACEHOLDER = '{token}';

/** Salesforce's URL ends with the connector's secret (`token`: the one just made, else the placeholder); the others' are signed. */
export const crmInboundUrl = (base: string, crm: keyof typeof CRM_INBOUND_PATHS, business: string, token?: string) =>
  `${base.replace(/\/+$/, '')}/integrations/${crm}/${business}/${CRM_INBOUND_PATHS[crm]}${crm === 'salesforce' ? `/${token ?? INBOUND_TOKEN_PLACEHOLDER}` : ''}`;

/** A connector as its routes show it: the plain settings, the names of the credentials set (never their values). */
export const connectorView = (c: CrmConnector, secretNames: string[], inboundUrl: string) => ({
  crm: c.crm,
  agents: c.agents,
  policy: c.policy,
  settings: c.settings,
  secrets_set: secretNames,
  agent_map: c.agentMap,
  follow_crm_owner: c.followCrmOwner,
  inbound_url: inboundUrl,
  created_at: c.createdAt.toISOString(),
  updated_at: c.updatedAt.toISOString(),
});
