import { Client } from '@hubspot/api-client';
import { failureOfStatus, ianaOfHubspotZone, type CrmApi, type CrmRecord } from './types';

/* HubSpot through its SDK: contacts read and their `hubspot_owner_id` written (CRM API v3). */

export const HUBSPOT_API_URL = 'https://api.hubapi.com';
const PROPERTIES = ['firstname', 'lastname', 'phone', 'mobilephone', 'hs_timezone', 'hubspot_owner_id'];

type SdkError = { code?: number; headers?: Record<string, string> };

function failure(action: string, error: unknown) {
  const { code, headers } = (error ?? {}) as SdkError;
  return failureOfStatus('HubSpot', action, typeof code === 'number' && code > 0 ? code : undefined, headers?.['retry-after']);
}

export function hubspotApi(accessToken: string, basePath = HUBSPOT_API_URL): CrmApi {
  // Retries are the workflow's (they honour Retry-After across worker restarts), not the SDK's.
  const client = new Client({ accessToken, basePath, numberOfApiCallRetries: 0 });
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
