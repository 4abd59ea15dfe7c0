import { CRMS, type Crm } from '../../domain';
import { crmInboundUrl } from '../../views/crm-connector';
import type { CrmFakeCredentials } from './index';

/* What npm start prints of the CRM connectors: where each CRM posts, and the fakes it runs with CRM_FAKES=1. */

const NAMES: Record<Crm, string> = { hubspot: 'HubSpot', salesforce: 'Salesforce', pipedrive: 'Pipedrive' };

/** The inbound URL pattern of each CRM, then every connector that exists (business and CRM) with its own. */
export function crmInboundLines(base: string, connectors: { business: string; crm: string }[]): string {
  const pattern = CRMS.map((crm) => `${NAMES[crm].padEnd(11)}${crmInboundUrl(base, crm, '{business}')}`);
  const existing = connectors.map((c) => `${c.business} ${c.crm}: ${crmInboundUrl(base, c.crm as Crm, c.business)}`);
  // Salesforce's secret is kept hashed: only the PUT that made it, or a rotation, shows it.
  const token = `{token}: in the inbound_url of the salesforce connector's first PUT, or POST /ext/v2/{business}/integrations/salesforce/rotate-inbound-token for a new one`;
  return [...pattern, ...existing, token].join('\n               ');
}

/** The fakes' addresses; their credentials (the connectors' settings) are in `credentialsFile`, never printed. */
export function crmFakesLines(fakes: CrmFakeCredentials, credentialsFile: string): string {
  return [
    `HubSpot ${fakes.hubspot.url}, Salesforce ${fakes.salesforce.url}, Pipedrive ${fakes.pipedrive.url}; settings for the connectors in ${credentialsFile}`,
    'POST /_fake/contacts (HubSpot), /_fake/leads (Salesforce), /_fake/persons (Pipedrive) creates a record and sends its webhook (docs/integrations.md)',
  ].join('\n               ');
}
