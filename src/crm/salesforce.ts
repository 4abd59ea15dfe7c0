import type { Dispatcher } from 'undici';
import { isNonPublicAddressRefusal, publicOnlyCrmNetwork, type OutboundNetwork } from '../net/outbound';
import { isResponseTooLarge } from '../net/capped-body';
import { crmAddressNotPublic, crmAnswerTooLarge, CrmRequestFailed, logCrmFailure, type CrmApi, type CrmRecord } from './types';

/* Salesforce through jsforce: Leads read and their OwnerId written, with the org's assignment rules kept out. */

// Loaded on first use: a process with no Salesforce connector never needs jsforce's few hundred modules.
const jsforce = () => require('jsforce') as typeof import('jsforce');
const jsforceRequests = () => require('jsforce/lib/request') as typeof import('jsforce/lib/request');

/**
 * jsforce sends every request (the REST API, the token renewal, the redirects it follows) through one
 * undici dispatcher of its module: the guard's is put there. A process has one network for its CRMs.
 */
let jsforceDispatcher: Dispatcher | undefined;
function connectJsforceThrough(network: OutboundNetwork) {
  if (jsforceDispatcher === network.dispatcher) return;
  jsforceRequests().setDispatcher(network.dispatcher);
  jsforceDispatcher = network.dispatcher;
}

export const SALESFORCE_API_VERSION = '62.0';

export interface SalesforceAccess {
  instanceUrl: string;
  accessToken: string;
  /** With a connected app's refresh token jsforce renews an expired access token by itself. */
  refreshToken?: string;
  clientId?: string;
  clientSecret?: string;
  loginUrl?: string;
}

/** Error codes a later attempt may get past: limits, locks, outages. */
const PASSING = new Set(['REQUEST_LIMIT_EXCEEDED', 'SERVER_UNAVAILABLE', 'UNABLE_TO_LOCK_ROW', 'ERROR_HTTP_429', 'ERROR_HTTP_500', 'ERROR_HTTP_502', 'ERROR_HTTP_503', 'ERROR_HTTP_504']);
const GONE = new Set(['NOT_FOUND', 'ENTITY_IS_DELETED', 'INVALID_CROSS_REFERENCE_KEY', 'MALFORMED_ID']);

/**
 * Our words and the status; Salesforce's error code goes to our log only (it may carry anything the
 * org's host chose to answer).
 */
function failure(action: string, error: unknown): CrmRequestFailed {
  if (isNonPublicAddressRefusal(error)) return crmAddressNotPublic('Salesforce', action);
  if (isResponseTooLarge(error)) return crmAnswerTooLarge('Salesforce', action);
  const code = (error as { errorCode?: string }).errorCode;
  // No Salesforce error code: the request did not get an answer (refused, reset, timed out).
  const passing = !code || PASSING.has(code) || /^E[A-Z]+$/.test(code);
  const status = code?.startsWith('ERROR_HTTP_') ? Number(code.slice(11)) : undefined;
  // A refused token renewal names its OAuth error (`invalid_grant`) as the error's name instead.
  const name = (error as { name?: unknown }).name;
  const oauthError = !code && typeof name === 'string' && /^(?:[a-z_]+|ERROR_HTTP_\d+)$/.test(name) ? name : undefined;
  if (code || oauthError) logCrmFailure('Salesforce', action, status, code ?? oauthError);
  const said = status ? ` (HTTP ${status})` : code ? ' (an error answer: its code is in the service\'s log)' : ' (no answer)';
  return new CrmRequestFailed(`Salesforce refused to ${action}${said}`, status, !passing);
}

/** `network`: what jsforce connects through (the public-address guard in production); unset, guarded. */
export function salesforceApi(access: SalesforceAccess, network: OutboundNetwork = publicOnlyCrmNetwork()): CrmApi {
  connectJsforceThrough(network);
  const connection = new (jsforce().Connection)({
    instanceUrl: access.instanceUrl,
    accessToken: access.accessToken,
    version: SALESFORCE_API_VERSION,
    ...(access.refreshToken && {
      refreshToken: access.refreshToken,
      oauth2: { clientId: access.clientId, clientSecret: access.clientSecret, loginUrl: access.loginUrl ?? 'https://login.salesforce.com' },
    }),
  });
  return {
    async fetchRecord(recordId): Promise<CrmRecord | null> {
      try {
        const lead = (await connection.sobject('Lead').retrieve(recordId)) as Record<string, string | null>;
        const name = [lead.FirstName, lead.LastName].filter((part) => part && part.trim()).join(' ');
        return { name: name || lead.Name || null, phone: lead.MobilePhone || lead.Phone || null, timezone: null, ownerId: lead.OwnerId || null };
      } catch (error) {
        if (GONE.has((error as { errorCode?: string }).errorCode ?? '')) return null;
        throw failure('read the Lead', error);
      }
    },
    async writeOwner(recordId, crmOwnerId) {
      let result;
      try {
        // Without the header an org's active assignment rule reassigns the Lead on update.
        result = await connection.sobject('Lead').update({ Id: recordId, OwnerId: crmOwnerId }, { headers: { 'Sforce-Auto-Assign': 'FALSE' } });
      } catch (error) {
        throw failure('write the Lead owner', error);
      }
      if (!result.success) throw new CrmRequestFailed('Salesforce refused to write the Lead owner', undefined, true);
    },
    async listCreatedSince(since, limit) {
      // A SOQL datetime literal is unquoted ISO 8601; `since` is ours, never a caller's text.
      const soql = `SELECT Id FROM Lead WHERE CreatedDate >= ${since.toISOString().replace(/\.\d{3}Z$/, 'Z')} ORDER BY CreatedDate LIMIT ${Math.max(1, Math.floor(limit))}`;
      try {
        const result = await connection.query<{ Id: string }>(soql, { autoFetch: true, maxFetch: limit });
        return result.records.map((lead) => lead.Id).slice(0, limit);
      } catch (error) {
        throw failure('list new Leads', error);
      }
    },
  };
}
