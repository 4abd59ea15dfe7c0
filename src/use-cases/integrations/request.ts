import { CRMS, type Crm } from '../../domain';
import { Invalid, NotFound } from '../errors';
import { parseBody } from '../input/validation';
import { CrmConnectorRequest, MAX_AGENT_MAP_ENTRIES } from './contract';

/*
 * The checks of `PUT /integrations/{crm}` beyond its contract (contract.ts): whom to assign (`agents`, or a routing `policy`), the CRM's
 * settings (plain ones shown back, credentials sealed and never shown), the CRM owner id of each agent.
 */

const MAX_SETTING_LENGTH = 4096;

/** The settings of each CRM: which are credentials (sealed), and which a first PUT must give. */
export const CRM_SETTINGS: Record<Crm, { plain: readonly string[]; secret: readonly string[]; required: readonly string[] }> = {
  hubspot: { plain: ['app_id'], secret: ['client_secret', 'access_token'], required: ['client_secret', 'access_token'] },
  salesforce: {
    plain: ['organization_id', 'instance_url', 'login_url', 'client_id'],
    secret: ['access_token', 'refresh_token', 'client_secret'],
    required: ['organization_id', 'instance_url', 'access_token'],
  },
  pipedrive: { plain: ['webhook_user'], secret: ['api_token', 'webhook_password'], required: ['api_token', 'webhook_user', 'webhook_password'] },
};

const SALESFORCE_ORG_ID = /^00D[A-Za-z0-9]{12}(?:[A-Za-z0-9]{3})?$/;

/** Salesforce's own domains: an org's instance and login URLs are on their subdomains. */
export const SALESFORCE_DOMAINS = ['salesforce.com', 'force.com', 'salesforce-setup.com', 'cloudforce.com', 'database.com'] as const;

/**
 * An https URL on a subdomain of one of `domains`, without credentials. The service sends the
 * connector's token there: any other host could be our own network (`https://169.254.169.254`,
 * `https://2130706433`, which the URL parser reads as 127.0.0.1) or a stranger's.
 */
function isSalesforceUrl(value: string, domains: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.username || url.password) return false;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  return domains.some((domain) => host.endsWith(`.${domain}`));
}

const NOT_SALESFORCE = 'must be an https URL on a Salesforce domain';

/** Per-setting rules beyond "a string": a URL where one is meant, Salesforce's org id form. */
function settingRules(salesforceDomains: readonly string[]): Record<string, (value: string) => string | undefined> {
  return {
    organization_id: (v) => (SALESFORCE_ORG_ID.test(v) ? undefined : 'must be a Salesforce organization id (00D…, 15 or 18 characters)'),
    instance_url: (v) => (isSalesforceUrl(v, salesforceDomains) ? undefined : NOT_SALESFORCE),
    login_url: (v) => (isSalesforceUrl(v, salesforceDomains) ? undefined : NOT_SALESFORCE),
  };
}

export interface ConnectorRequest {
  agents: string[];
  policy: string | null;
  /** The plain settings given. */
  settings: Record<string, string>;
  /** The credentials given (others keep their stored values). */
  secrets: Record<string, string>;
  agentMap: Record<string, string>;
  followCrmOwner: boolean;
}

/** The CRM named in the path, or the 404 of an unknown route. */
export function crmOf(name: string): Crm {
  if (!(CRMS as readonly string[]).includes(name)) throw new NotFound(`Unknown CRM ${name}: one of ${CRMS.join(', ')}`);
  return name as Crm;
}

/**
 * The body's checks, in order: its shape, then whom to assign, then each setting. A 400 names the first
 * bad field. `salesforceDomains`: more domains than Salesforce's own (SALESFORCE_ALLOWED_DOMAINS).
 */
export function parseConnectorRequest(crm: Crm, body: unknown, options: { salesforceDomains?: readonly string[] } = {}): ConnectorRequest {
  const fields = parseBody(CrmConnectorRequest, body);
  if (!fields.agents && !fields.policy) throw new Invalid('Missing agents: name the agents to assign (or a routing policy)');
  if (fields.agents && fields.policy) throw new Invalid('Invalid policy: name the agents to assign or a routing policy, not both');
  if (fields.agents && new Set(fields.agents).size !== fields.agents.length) throw new Invalid('Invalid agents: each agent at most once');
  const agentMap = fields.agent_map ?? {};
  if (Object.keys(agentMap).length > MAX_AGENT_MAP_ENTRIES) throw new Invalid(`Invalid agent_map: at most ${MAX_AGENT_MAP_ENTRIES} entries`);
  const known = CRM_SETTINGS[crm];
  const rules = settingRules([...SALESFORCE_DOMAINS, ...(options.salesforceDomains ?? [])]);
  const settings: Record<string, string> = {};
  const secrets: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields.settings ?? {})) {
    const isSecret = known.secret.includes(name);
    if (!isSecret && !known.plain.includes(name)) throw new Invalid(`Invalid settings.${name}: not a ${crm} setting (${[...known.plain, ...known.secret].join(', ')})`);
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_SETTING_LENGTH) throw new Invalid(`Invalid settings.${name}: must be a non-empty string of at most ${MAX_SETTING_LENGTH} characters`);
    const broken = rules[name]?.(value);
    if (broken) throw new Invalid(`Invalid settings.${name}: ${broken}`);
    (isSecret ? secrets : settings)[name] = value;
  }
  return { agents: fields.agents ?? [], policy: fields.policy ?? null, settings, secrets, agentMap, followCrmOwner: fields.follow_crm_owner ?? false };
}
