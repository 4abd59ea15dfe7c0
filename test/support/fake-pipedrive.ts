import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './crm';

/*
 * A local Pipedrive for its SDK: persons through API v2 (`/api/v2/persons/{id}`) and leads through API
 * v1 (`/v1/leads/{id}`), read and their `owner_id` updated, the API token in `x-api-token`. Its webhook
 * sender posts webhooks v2 (`meta` with action, entity, entity_id, attempt…, `data`, `previous`) with
 * the HTTP Basic credentials set on the webhook, and retries the same event with `meta.attempt` raised.
 */

export interface FakePerson {
  name: string;
  phones?: { value: string; primary: boolean; label?: string }[];
  owner_id?: number;
}

export interface FakePipedriveLead {
  title: string;
  owner_id?: number;
}

export interface PipedriveWebhook {
  meta: Record<string, unknown> & { action: string; entity: string; entity_id: string; attempt: number };
  data: Record<string, unknown> | null;
  previous: Record<string, unknown> | null;
}

export interface FakePipedrive {
  url: string;
  apiToken: string;
  persons: Map<number, FakePerson>;
  leads: Map<string, FakePipedriveLead>;
  writes: { id: string; owner: number; api: 'v1' | 'v2'; status: number }[];
  createPerson(id: number, person: FakePerson): PipedriveWebhook;
  createLead(lead: FakePipedriveLead): { id: string; event: PipedriveWebhook };
  /** The same event again, as Pipedrive retries it (or as a second webhook of the same event sends it: `webhookId`). */
  retryOf(event: PipedriveWebhook, options?: { webhookId?: string }): PipedriveWebhook;
  deliver(targetUrl: string, event: PipedriveWebhook, credentials: { user: string; password: string }): Promise<number>;
  stop(): Promise<void>;
}

export async function startFakePipedrive(): Promise<FakePipedrive> {
  const apiToken = `pd-${randomUUID()}`;
  const persons = new Map<number, FakePerson>();
  const leads = new Map<string, FakePipedriveLead>();
  const addedAt = new Map<string, number>();
  const writes: FakePipedrive['writes'] = [];

  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const send = (status: number, payload: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    if (req.headers['x-api-token'] !== apiToken) return send(401, { success: false, error: 'unauthorized access', errorCode: 401 });
    const path = (req.url ?? '').split('?')[0];
    const query = new URL(req.url ?? '', 'http://fake').searchParams;
    const since = Date.parse(query.get('updated_since') ?? '1970-01-01T00:00:00Z');
    if (req.method === 'GET' && path === '/api/v2/persons') {
      const data = [...persons].filter(([id]) => (addedAt.get(`p${id}`) ?? 0) >= since).map(([id, p]) => ({ id, name: p.name, owner_id: p.owner_id ?? 1, add_time: new Date(addedAt.get(`p${id}`)!).toISOString() }));
      return send(200, { success: true, data, additional_data: { next_cursor: null } });
    }
    if (req.method === 'GET' && path === '/v1/leads') {
      const start = Number(query.get('start') ?? 0);
      const all = [...leads].filter(([id]) => (addedAt.get(`l${id}`) ?? 0) >= since).map(([id, l]) => ({ id, title: l.title, owner_id: l.owner_id ?? 1, add_time: new Date(addedAt.get(`l${id}`)!).toISOString() }));
      return send(200, { success: true, data: all.slice(start, start + Number(query.get('limit') ?? 100)), additional_data: { pagination: { start, limit: 100, more_items_in_collection: false } } });
    }
    const person = /^\/api\/v2\/persons\/(\d+)$/.exec(path);
    const lead = /^\/v1\/leads\/([0-9a-f-]{36})$/.exec(path);
    const ownerOf = () => (JSON.parse(body || '{}') as { owner_id?: unknown }).owner_id;
    if (person) {
      const id = Number(person[1]);
      const found = persons.get(id);
      if (!found) return send(404, { success: false, error: 'Person not found', code: 'NOT_FOUND' });
      const view = () => ({ id, name: found.name, owner_id: found.owner_id ?? 1, phones: found.phones ?? [], emails: [], add_time: new Date().toISOString() });
      if (req.method === 'GET') return send(200, { success: true, data: view() });
      if (req.method === 'PATCH') {
        const owner = ownerOf();
        if (typeof owner !== 'number') return send(400, { success: false, error: 'owner_id must be a number' });
        writes.push({ id: String(id), owner, api: 'v2', status: 200 });
        found.owner_id = owner;
        return send(200, { success: true, data: view() });
      }
    }
    if (lead) {
      const id = lead[1];
      const found = leads.get(id);
      if (!found) return send(404, { success: false, error: 'Lead not found', errorCode: 404 });
      const view = () => ({ id, title: found.title, owner_id: found.owner_id ?? 1, person_id: null, organization_id: null, add_time: new Date().toISOString() });
      if (req.method === 'GET') return send(200, { success: true, data: view() });
      if (req.method === 'PATCH') {
        const owner = ownerOf();
        if (typeof owner !== 'number') return send(400, { success: false, error: 'owner_id must be a number' });
        writes.push({ id, owner, api: 'v1', status: 200 });
        found.owner_id = owner;
        return send(200, { success: true, data: view() });
      }
    }
    send(404, { success: false, error: 'Unknown method', errorCode: 404 });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));

  const created = (entity: string, id: string, data: Record<string, unknown>): PipedriveWebhook => ({
    meta: {
      action: 'create',
      entity,
      entity_id: id,
      id: randomUUID(),
      attempt: 1,
      company_id: '11823463',
      correlation_id: randomUUID(),
      change_source: 'app',
      is_bulk_edit: false,
      timestamp: new Date().toISOString(),
      type: 'general',
      user_id: '21500001',
      version: '2.0',
      webhook_id: '901',
      webhook_owner_id: '21500001',
    },
    data: { id: entity === 'person' ? Number(id) : id, ...data },
    previous: null,
  });

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiToken,
    persons,
    leads,
    writes,
    createPerson: (id, person) => {
      persons.set(id, { ...person });
      addedAt.set(`p${id}`, Date.now());
      return created('person', String(id), { name: person.name, owner_id: person.owner_id ?? 1 });
    },
    createLead: (lead) => {
      const id = randomUUID();
      leads.set(id, { ...lead });
      addedAt.set(`l${id}`, Date.now());
      return { id, event: created('lead', id, { title: lead.title, owner_id: lead.owner_id ?? 1 }) };
    },
    retryOf: (event, options = {}) => ({
      ...event,
      meta: { ...event.meta, attempt: event.meta.attempt + 1, ...(options.webhookId && { webhook_id: options.webhookId, id: randomUUID(), attempt: 1 }) },
    }),
    deliver: async (targetUrl, event, { user, password }) => {
      const response = await fetch(targetUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
        body: JSON.stringify(event),
      });
      await response.text();
      return response.status;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
