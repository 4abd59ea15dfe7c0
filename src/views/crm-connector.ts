import type { CrmConnector } from '../generated/prisma/client';

/** Where the CRM posts to this service, for each CRM: the URL to paste into it. */
export const CRM_INBOUND_PATHS = { hubspot: 'webhook', salesforce: 'outbound-message', pipedrive: 'webhook' } as const;

export const crmInboundUrl = (base: string, crm: keyof typeof CRM_INBOUND_PATHS, business: string) =>
  `${base.replace(/\/+$/, '')}/integrations/${crm}/${business}/${CRM_INBOUND_PATHS[crm]}`;

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
