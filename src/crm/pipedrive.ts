import { CRM_ANSWER_MAX_BYTES } from '../net/capped-body';
import { publicOnlyCrmNetwork, type OutboundNetwork } from '../net/outbound';
import { failureOfStatus, type CrmApi, type CrmRecord } from './types';

/* Pipedrive through its SDK: persons (API v2) and leads (API v1), read and their owner_id written. */

// Loaded on first use: about a thousand modules that a process with no Pipedrive connector never needs.
const sdkV1 = () => require('pipedrive/v1') as typeof import('pipedrive/v1');
const sdkV2 = () => require('pipedrive/v2') as typeof import('pipedrive/v2');

export const PIPEDRIVE_API_URL = 'https://api.pipedrive.com';

type AxiosLike = { interceptors: { response: { clear(): void; use(ok: (r: any) => any, fail: (e: any) => any): void } }; defaults: Record<string, unknown> };

const axiosOf = (api: object) => (api as unknown as { axios: AxiosLike }).axios;

/**
 * Each API's own axios instance connects through `network` (redirects it follows too); an HTTP(S)_PROXY
 * of the environment would connect around the guard, so none is taken.
 */
function connectThrough<T extends object>(api: T, network: OutboundNetwork): T {
  // axios's own cap: it fails the call with its own words (the socket's cap, a little higher, is the backstop).
  Object.assign(axiosOf(api).defaults, { httpAgent: network.httpAgent, httpsAgent: network.httpsAgent, proxy: false, maxContentLength: CRM_ANSWER_MAX_BYTES });
  return api;
}

/**
 * The SDK's own error interceptor rejects with the response's body alone, dropping the status and
 * Retry-After that retries need: answers are unwrapped the same way, errors kept whole.
 */
function keepStatus<T extends object>(api: T): T {
  const axios = axiosOf(api);
  axios.interceptors.response.clear();
  axios.interceptors.response.use((response) => response?.data ?? response, (error) => Promise.reject(error));
  return api;
}

/** An axios error: Pipedrive's answer, whose body names its error as `errorCode` (or `error_info`'s code). */
type SdkError = { response?: { status?: number; headers?: Record<string, string>; data?: { errorCode?: unknown; code?: unknown } } };

function failure(action: string, error: unknown) {
  const response = (error as SdkError).response;
  const data = typeof response?.data === 'object' && response.data ? response.data : undefined;
  return failureOfStatus('Pipedrive', action, response?.status, response?.headers?.['retry-after'], error, data?.errorCode ?? data?.code);
}

const statusOf = (error: unknown) => (error as { response?: { status?: number } }).response?.status;

/** A lead's id is a UUID, a person's a number. */
const isLeadId = (recordId: string) => !/^\d+$/.test(recordId);

/** `network`: what axios (under the SDK) connects through (the public-address guard in production); unset, guarded. */
export function pipedriveApi(apiToken: string, base = PIPEDRIVE_API_URL, network: OutboundNetwork = publicOnlyCrmNetwork()): CrmApi {
  const root = base.replace(/\/+$/, '');
  const v1 = sdkV1();
  const v2 = sdkV2();
  const persons = connectThrough(keepStatus(new v2.PersonsApi(new v2.Configuration({ apiKey: apiToken, basePath: `${root}/api/v2` }))), network);
  const leads = connectThrough(keepStatus(new v1.LeadsApi(new v1.Configuration({ apiKey: apiToken, basePath: `${root}/v1` }))), network);
  return {
    async fetchRecord(recordId): Promise<CrmRecord | null> {
      try {
        if (isLeadId(recordId)) {
          const lead = (await leads.getLead({ id: recordId })).data;
          return lead ? { name: lead.title ?? null, phone: null, timezone: null, ownerId: lead.owner_id != null ? String(lead.owner_id) : null } : null;
        }
        const person = (await persons.getPerson({ id: Number(recordId) })).data;
        if (!person) return null;
        const phones = (person.phones ?? []) as { value?: string; primary?: boolean }[];
        const phone = (phones.find((p) => p.primary) ?? phones[0])?.value ?? null;
        return { name: person.name ?? null, phone, timezone: null, ownerId: person.owner_id != null ? String(person.owner_id) : null };
      } catch (error) {
        if (statusOf(error) === 404 || statusOf(error) === 410) return null;
        throw failure('read the record', error);
      }
    },
    async writeOwner(recordId, crmOwnerId) {
      try {
        if (isLeadId(recordId)) await leads.updateLead({ id: recordId, UpdateLeadRequest: { owner_id: Number(crmOwnerId) } });
        else await persons.updatePerson({ id: Number(recordId), UpdatePersonRequest: { owner_id: Number(crmOwnerId) } });
      } catch (error) {
        throw failure('write the owner', error);
      }
    },
    async listCreatedSince(since, limit) {
      // Persons (API v2) and leads (API v1) changed since `since`, kept when they were added since.
      const ids: string[] = [];
      try {
        let cursor: string | undefined;
        do {
          const page = await persons.getPersons({ updated_since: since.toISOString().replace(/\.\d{3}Z$/, 'Z'), sort_by: 'add_time', sort_direction: 'asc', limit: 100, ...(cursor && { cursor }) });
          for (const person of page.data ?? []) if (person.add_time && Date.parse(person.add_time) >= since.getTime()) ids.push(String(person.id));
          cursor = page.additional_data?.next_cursor ?? undefined;
        } while (cursor && ids.length < limit);
        for (let start = 0; ids.length < limit; start += 100) {
          const page = await leads.getLeads({ limit: 100, start, updated_since: since.toISOString().replace(/\.\d{3}Z$/, 'Z'), sort: 'add_time' });
          const batch = (page.data ?? []) as { id?: string; add_time?: string }[];
          for (const lead of batch) if (lead.id && lead.add_time && Date.parse(lead.add_time) >= since.getTime()) ids.push(lead.id);
          if (batch.length < 100) break;
        }
      } catch (error) {
        throw failure('list new records', error);
      }
      return ids.slice(0, limit);
    },
  };
}
