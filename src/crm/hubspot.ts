import { Client } from '@hubspot/api-client';
import { publicOnlyCrmNetwork, type OutboundNetwork } from '../net/outbound';
import { failureOfStatus, ianaOfHubspotZone, type CrmApi, type CrmRecord } from './types';

/* HubSpot through its SDK: contacts read and their `hubspot_owner_id` written (CRM API v3). */

export const HUBSPOT_API_URL = 'https://api.hubapi.com';
const PROPERTIES = ['firstname', 'lastname', 'phone', 'mobilephone', 'hs_timezone', 'hubspot_owner_id'];

/** The SDK's ApiException: the status as `code`, HubSpot's error answer as `body` (its code is `category`). */
type SdkError = { code?: unknown; headers?: Record<string, string>; body?: { category?: unknown; subCategory?: unknown } };

function failure(action: string, error: unknown) {
  const { code, headers, body } = (error ?? {}) as SdkError;
  const status = typeof code === 'number' && code > 0 ? code : undefined;
  const crmCode = typeof body === 'object' && body ? (body.subCategory ?? body.category) : undefined;
  return failureOfStatus('HubSpot', action, status, headers?.['retry-after'], error, crmCode);
}

/** `network`: what the SDK connects through (the public-address guard in production); unset, guarded. */
export function hubspotApi(accessToken: string, basePath = HUBSPOT_API_URL, network: OutboundNetwork = publicOnlyCrmNetwork()): CrmApi {
  // Retries are the workflow's (they honour Retry-After across worker restarts), not the SDK's.
  // With an agent the SDK sends through node:http, which connects through the guard's lookup.
  const client = new Client({ accessToken, basePath, numberOfApiCallRetries: 0, httpAgent: network.agentFor(basePath) });
  return {
    async fetchRecord(recordId): Promise<CrmRecord | null> {
      try {
        const contact = await client.crm.contacts.basicApi.getById(recordId, PROPERTIES);
        const p = contact.properties;
        const name = [p.firstname, p.lastname].filter((part) => part && part.trim()).join(' ');
        return { name: name || null, phone: p.phone || p.mobilephone || null, timezone: ianaOfHubspotZone(p.hs_timezone), ownerId: p.hubspot_owner_id || null };
      } catch (error) {
        if ((error as SdkError).code === 404) return null;
        throw failure('read the contact', error);
      }
    },
    async writeOwner(recordId, crmOwnerId) {
      try {
        await client.crm.contacts.basicApi.update(recordId, { properties: { hubspot_owner_id: crmOwnerId } });
      } catch (error) {
        throw failure('write the contact owner', error);
      }
    },
    async listCreatedSince(since, limit) {
      const ids: string[] = [];
      let after: string | undefined;
      try {
        do {
          const page = await client.crm.contacts.searchApi.doSearch({
            filterGroups: [{ filters: [{ propertyName: 'createdate', operator: 'GTE' as never, value: String(since.getTime()) }] }],
            sorts: ['createdate'],
            properties: ['createdate'],
            limit: 100,
            ...(after && { after }),
          });
          ids.push(...page.results.map((contact) => contact.id));
          after = page.paging?.next?.after;
        } while (after && ids.length < limit);
      } catch (error) {
        throw failure('list new contacts', error);
      }
      return ids.slice(0, limit);
    },
  };
}
