import { CRM_SECRETS_PURPOSE, deleteConnector, findOwnConnector, listOwnConnectors, putConnector, setInboundTokenHash } from '../../db/crm-connectors';
import { inboundTokenHash, newInboundToken } from '../../crm/signatures';
import { existingAgentIds } from '../../db/agents';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { CRMS, type Crm } from '../../domain';
import type { CrmEndpoints } from '../../config/index';
import type { SecretBox } from '../../secrets/secret-box';
import { connectorView, crmInboundUrl } from '../../views/crm-connector';
import { Conflict, Invalid, NotFound } from '../errors';
import { refuseUnknownPolicy } from './choose-owner';
import type { InboundKeyCache } from './inbound-keys';
import { CRM_SETTINGS, parseConnectorRequest } from './request';

export interface ConnectorDeps {
  prisma: Prisma;
  secrets: SecretBox;
  /** Its `salesforceDomains` widen where Salesforce URLs may point. */
  crmEndpoints?: Pick<CrmEndpoints, 'salesforceDomains'>;
  /** The inbound doors' cached keys, forgotten when a connector changes here. */
  inboundKeys?: InboundKeyCache;
}

const connectorNotFound = (crm: Crm) => new NotFound(`No ${crm} connector`);

/** The stored credentials in the clear (an object of setting name to value). */
export function openCrmSecrets(secrets: SecretBox, sealed: string): Record<string, string> {
  return JSON.parse(secrets.open(sealed, CRM_SECRETS_PURPOSE)) as Record<string, string>;
}

/**
 * Sets the caller's connector to `crm`: every agent it names must be the caller's, a setting left out
 * keeps its stored value, and a first PUT must give the CRM's required settings. `base` is where the
 * CRM reaches this service (PUBLIC_BASE_URL, else the request's origin).
 */
export async function putCrmConnector(deps: ConnectorDeps, scope: Scope, crm: Crm, body: unknown, base: string) {
  const request = parseConnectorRequest(crm, body, { salesforceDomains: deps.crmEndpoints?.salesforceDomains });
  await refuseUnknownPolicy(deps.prisma, scope, request.policy);
  const named = [...new Set([...request.agents, ...Object.values(request.agentMap)])];
  const found = await existingAgentIds(deps.prisma, scope, named);
  const missing = named.find((id) => !found.has(id));
  if (missing) throw new Invalid(`Invalid agents: no agent ${missing}`);

  let secretNames: string[] = [];
  // Salesforce signs nothing: its inbound URL carries a secret, made once (or for a connector from before).
  let token: string | undefined;
  const outcome = await putConnector(deps.prisma, scope, crm, (stored) => {
    const settings = { ...((stored?.settings ?? {}) as Record<string, string>), ...request.settings };
    const secrets = { ...(stored ? openCrmSecrets(deps.secrets, stored.secrets) : {}), ...request.secrets };
    const missingSetting = CRM_SETTINGS[crm].required.find((name) => !(name in settings) && !(name in secrets));
    if (missingSetting) throw new Invalid(`Missing settings.${missingSetting}: a ${crm} connector needs ${CRM_SETTINGS[crm].required.join(', ')}`);
    secretNames = Object.keys(secrets).sort();
    token = crm === 'salesforce' && !stored?.inboundTokenHash ? newInboundToken() : undefined;
    return {
      ...(token && { inboundTokenHash: inboundTokenHash(token) }),
      agents: request.agents,
      policy: request.policy,
      settings,
      secrets: deps.secrets.seal(JSON.stringify(secrets), CRM_SECRETS_PURPOSE),
      agentMap: request.agentMap,
      followCrmOwner: request.followCrmOwner,
    };
  });
  if ('heldByAnotherUser' in outcome) throw new Conflict(`The business already has a ${crm} connector, set by another user`);
  deps.inboundKeys?.forget(scope.business, crm);
  return { created: outcome.created, connector: connectorView(outcome.connector, secretNames, crmInboundUrl(base, crm, scope.business, token)) };
}

export async function getCrmConnector(deps: ConnectorDeps, scope: Scope, crm: Crm, base: string) {
  const connector = await findOwnConnector(deps.prisma, scope, crm);
  if (!connector) throw connectorNotFound(crm);
  const secretNames = Object.keys(openCrmSecrets(deps.secrets, connector.secrets)).sort();
  return connectorView(connector, secretNames, crmInboundUrl(base, crm, scope.business));
}

/** GET /integrations: the caller's connectors in this business, in the order of CRMS, each as GET /integrations/{crm} shows it (no credentials). */
export async function listCrmConnectors(deps: ConnectorDeps, scope: Scope, base: string) {
  const connectors = await listOwnConnectors(deps.prisma, scope);
  const order = (crm: string) => (CRMS as readonly string[]).indexOf(crm);
  return {
    integrations: connectors
      .sort((a, b) => order(a.crm) - order(b.crm))
      .map((connector) => connectorView(connector, Object.keys(openCrmSecrets(deps.secrets, connector.secrets)).sort(), crmInboundUrl(base, connector.crm as Crm, scope.business))),
  };
}

export async function deleteCrmConnector(deps: ConnectorDeps, scope: Scope, crm: Crm): Promise<void> {
  const deleted = await deleteConnector(deps.prisma, scope, crm);
  deps.inboundKeys?.forget(scope.business, crm);
  if (!deleted) throw connectorNotFound(crm);
}

/** A new secret for the caller's Salesforce connector's inbound URL: the old URL is refused from now on (in other API processes within INBOUND_KEY_TTL_MS). */
export async function rotateInboundToken(deps: ConnectorDeps, scope: Scope, crm: Crm, base: string) {
  if (crm !== 'salesforce') throw new NotFound(`No inbound token for ${crm}: only Salesforce's inbound URL carries one (${crm} signs its requests)`);
  const token = newInboundToken();
  const connector = await setInboundTokenHash(deps.prisma, scope, crm, inboundTokenHash(token));
  deps.inboundKeys?.forget(scope.business, crm);
  if (!connector) throw connectorNotFound(crm);
  const secretNames = Object.keys(openCrmSecrets(deps.secrets, connector.secrets)).sort();
  return connectorView(connector, secretNames, crmInboundUrl(base, crm, scope.business, token));
}
