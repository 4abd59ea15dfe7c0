import { randomUUID } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { closeServer, listenLocally, readBody, sendWebhook } from './http';

/*
 * A local Pipedrive for its SDK: persons through API v2 (`/api/v2/persons/{id}`) and leads through API
 * v1 (`/v1/leads/{id}`), read and their `owner_id` updated, the API token in `x-api-token`. Its webhook
 * sender posts webhooks v2 (`meta` with action, entity, entity_id, attempt…, `data`, `previous`) with
 * the HTTP Basic credentials set on the webhook, and retries the same event with `meta.attempt` raised.
 * `npm start` (CRM_FAKES=1) drives it through its control routes, unauthenticated and development only:
 * `POST /_fake/persons` `{ id, name, phone?, target, user, password }` creates a person and posts its
 * `create` webhook to `target` with those credentials, answering the delivery (replayable as is);
 * `GET /_fake/writes`.
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

export interface FakePipedriveOptions {
  port?: number;
  apiToken?: string;
}

export async function startFakePipedrive(options: FakePipedriveOptions = {}): Promise<FakePipedrive> {
  const apiToken = options.apiToken ?? `pd-${randomUUID()}`;
  const persons = new Map<number, FakePerson>();
  const leads = new Map<string, FakePipedriveLead>();
  const addedAt = new Map<string, number>();
  const writes: FakePipedrive['writes'] = [];

  let control: (req: { method?: string; url?: string }, body: string, res: ServerResponse) => Promise<unknown> = async () => undefined;
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    if (req.url?.startsWith('/_fake/')) return control(req, body, res).catch((error) => res.writeHead(500).end(String(error)));
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
  const url = await listenLocally(server, options.port);

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

  const createPerson = (id: number, person: FakePerson) => {
    persons.set(id, { ...person });
    addedAt.set(`p${id}`, Date.now());
    return created('person', String(id), { name: person.name, owner_id: person.owner_id ?? 1 });
  };
  const send = (targetUrl: string, event: PipedriveWebhook, { user, password }: { user: string; password: string }) =>
    sendWebhook(targetUrl, { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` }, JSON.stringify(event));
  control = async (req, body, res) => {
    const answer = (status: number, payload: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    if (req.method === 'GET' && req.url === '/_fake/writes') return answer(200, writes);
    if (req.method !== 'POST' || req.url !== '/_fake/persons') return answer(404, { error: 'POST /_fake/persons or GET /_fake/writes' });
    const { id, name, phone, target, user, password } = JSON.parse(body || '{}') as { id?: number; name?: string; phone?: string; target?: string; user?: string; password?: string };
    if (!Number.isInteger(id) || typeof name !== 'string' || typeof target !== 'string' || typeof user !== 'string' || typeof password !== 'string') {
      return answer(400, { error: 'id (an integer), name, target (the inbound URL), user and password (the webhook\'s credentials) are required' });
    }
    const event = createPerson(id!, { name, ...(phone && { phones: [{ value: phone, primary: true, label: 'mobile' }] }) });
    answer(200, await send(target, event, { user, password }));
  };

  return {
    url,
    apiToken,
    persons,
    leads,
    writes,
    createPerson,
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
    deliver: async (targetUrl, event, credentials) => (await send(targetUrl, event, credentials)).status,
    stop: () => closeServer(server),
  };
}
