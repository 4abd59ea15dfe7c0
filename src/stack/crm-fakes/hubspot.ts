import { createHmac } from 'node:crypto';
import { createServer, type ServerResponse, type Server } from 'node:http';
import { closeServer, listenLocally, readBody, sendWebhook, type SentWebhook } from './http';

/*
 * HubSpot as the tests meet it: its CRM API v3 for contacts (the SDK is pointed here by HUBSPOT_API_URL),
 * checking the private app's bearer token, and its webhook sender, signing v3 as HubSpot documents it
 * (base64 HMAC-SHA256 of method + URI + body + timestamp with the app's client secret). Like HubSpot, a
 * write of `hubspot_owner_id` fires `contact.propertyChange` to the subscribed URL, when one is set.
 * The tests drive it in process; `npm start` (CRM_FAKES=1) through its control routes, unauthenticated
 * and development only: `POST /_fake/contacts` `{ id, firstname?, lastname?, phone?, target, timestamp? }`
 * creates a contact and posts its signed `contact.creation` to `target`, answering the delivery
 * (replayable as is); `GET /_fake/writes` lists the owner writes.
 */

export interface FakeContact {
  firstname?: string;
  lastname?: string;
  phone?: string;
  hs_timezone?: string;
  hubspot_owner_id?: string;
}

export interface HubspotEvent {
  eventId: number;
  subscriptionId: number;
  portalId: number;
  appId: number;
  occurredAt: number;
  subscriptionType: string;
  attemptNumber: number;
  objectId: number;
  changeSource: string;
  propertyName?: string;
  propertyValue?: string;
}

export interface FakeHubspot {
  url: string;
  accessToken: string;
  clientSecret: string;
  contacts: Map<string, FakeContact>;
  /** Every owner write that reached the API, answered or refused: `{ id, owner, status }`. */
  writes: { id: string; owner: string; status: number }[];
  /** The next writes' answers (then 200): e.g. `[429]` answers one 429 with Retry-After: 1. */
  refuseNextWrites(statuses: number[]): void;
  /** Writes are applied and counted but answered only when `false` again: a caller dies with its write in flight. */
  holdAnswers(hold: boolean): void;
  /** Where property changes are posted, signed (the app's webhook target URL); unset: nowhere. */
  subscribe(targetUrl: string | undefined): void;
  /** A contact created in HubSpot, by a person. */
  createContact(id: number, contact: FakeContact): HubspotEvent;
  /** Posts events as HubSpot's webhook sender does, signed; `timestamp`, `secret` to forge stale or bad ones. */
  deliver(targetUrl: string, events: HubspotEvent[], options?: DeliveryOptions): Promise<number>;
  /** A person's change of owner in HubSpot. */
  ownerChanged(id: number, owner: string, changeSource?: string): HubspotEvent;
  stop(): Promise<void>;
}

export interface DeliveryOptions {
  timestamp?: number;
  secret?: string;
}

export interface FakeHubspotOptions {
  port?: number;
  accessToken?: string;
  clientSecret?: string;
}

let nextEventId = 1_000_000 + Math.floor(Math.random() * 1_000_000);

export function hubspotSignature(secret: string, method: string, uri: string, body: string, timestamp: number): string {
  return createHmac('sha256', secret).update(`${method}${uri}${body}${timestamp}`).digest('base64');
}

export async function startFakeHubspot(options: FakeHubspotOptions = {}): Promise<FakeHubspot> {
  const accessToken = options.accessToken ?? `pat-na1-${Math.random().toString(36).slice(2)}`;
  const clientSecret = options.clientSecret ?? `secret-${Math.random().toString(36).slice(2)}`;
  const contacts = new Map<string, FakeContact>();
  const createdAt = new Map<string, number>();
  const writes: FakeHubspot['writes'] = [];
  let refusals: number[] = [];
  let holding = false;
  let held: (() => void)[] = [];
  let target: string | undefined;
  const event = (objectId: number, subscriptionType: string, more: Partial<HubspotEvent> = {}): HubspotEvent => ({
    eventId: nextEventId++,
    subscriptionId: 42,
    portalId: 62515,
    appId: 1160452,
    occurredAt: Date.now(),
    subscriptionType,
    attemptNumber: 0,
    objectId,
    changeSource: 'CRM_UI',
    ...more,
  });

  const send = (targetUrl: string, events: HubspotEvent[], options: DeliveryOptions = {}): Promise<SentWebhook> => {
    const body = JSON.stringify(events);
    const timestamp = options.timestamp ?? Date.now();
    const signature = hubspotSignature(options.secret ?? clientSecret, 'POST', targetUrl, body, timestamp);
    return sendWebhook(targetUrl, { 'content-type': 'application/json', 'x-hubspot-signature-v3': signature, 'x-hubspot-request-timestamp': String(timestamp) }, body);
  };
  const deliver: FakeHubspot['deliver'] = async (targetUrl, events, options) => (await send(targetUrl, events, options)).status;

  const createContact = (id: number, contact: FakeContact) => {
    contacts.set(String(id), { ...contact });
    if (!createdAt.has(String(id))) createdAt.set(String(id), Date.now());
    return event(id, 'contact.creation');
  };

  const control = async (req: { method?: string; url?: string }, body: string, res: ServerResponse) => {
    const answer = (status: number, payload: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    if (req.method === 'GET' && req.url === '/_fake/writes') return answer(200, writes);
    if (req.method !== 'POST' || req.url !== '/_fake/contacts') return answer(404, { error: 'POST /_fake/contacts or GET /_fake/writes' });
    const { id, target, timestamp, ...contact } = JSON.parse(body || '{}') as FakeContact & { id?: number; target?: string; timestamp?: number };
    if (!Number.isInteger(id) || typeof target !== 'string') return answer(400, { error: 'id (an integer) and target (the inbound URL) are required' });
    answer(200, await send(target, [createContact(id!, contact)], { timestamp }));
  };

  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    if (req.url?.startsWith('/_fake/')) return control(req, body, res).catch((error) => res.writeHead(500).end(String(error)));
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(payload));
    if (req.headers.authorization !== `Bearer ${accessToken}`) return send(401, { status: 'error', category: 'INVALID_AUTHENTICATION', message: 'Authentication credentials not found.' });
    if (req.method === 'POST' && req.url === '/crm/v3/objects/contacts/search') {
      // The catch-up sweep's listing: contacts whose createdate is at or after the filter's, oldest first.
      const request = JSON.parse(body) as { filterGroups?: { filters?: { propertyName: string; operator: string; value: string }[] }[]; limit?: number; after?: string };
      const filter = request.filterGroups?.[0]?.filters?.find((f) => f.propertyName === 'createdate' && f.operator === 'GTE');
      const since = filter ? Number(filter.value) : 0;
      const all = [...createdAt].filter(([, at]) => at >= since).sort((a, b) => a[1] - b[1]);
      const offset = Number(request.after ?? 0);
      const page = all.slice(offset, offset + (request.limit ?? 10));
      const results = page.map(([id, at]) => ({ id, properties: { createdate: new Date(at).toISOString(), hs_object_id: id }, createdAt: new Date(at).toISOString(), updatedAt: new Date(at).toISOString(), archived: false }));
      return send(200, { total: all.length, results, ...(offset + page.length < all.length && { paging: { next: { after: String(offset + page.length) } } }) });
    }
    const match = /^\/crm\/v3\/objects\/contacts\/(\d+)(\?.*)?$/.exec(req.url ?? '');
    if (!match) return send(404, { status: 'error', category: 'OBJECT_NOT_FOUND' });
    const id = match[1];
    const contact = contacts.get(id);
    if (!contact) return send(404, { status: 'error', category: 'OBJECT_NOT_FOUND', message: 'Object not found.' });
    const view = () => ({ id, properties: { ...contact, hs_object_id: id }, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(), archived: false });
    if (req.method === 'GET') return send(200, view());
    if (req.method === 'PATCH') {
      const owner = (JSON.parse(body) as { properties?: { hubspot_owner_id?: string } }).properties?.hubspot_owner_id;
      if (typeof owner !== 'string') return send(400, { status: 'error', category: 'VALIDATION_ERROR' });
      const refusal = refusals.shift();
      writes.push({ id, owner, status: refusal ?? 200 });
      if (refusal === 429) return send(429, { status: 'error', category: 'RATE_LIMITS', message: 'You have reached your secondly limit.' }, { 'retry-after': '1' });
      if (refusal) return send(refusal, { status: 'error', category: 'VALIDATION_ERROR', message: 'refused' });
      const changed = contact.hubspot_owner_id !== owner;
      contact.hubspot_owner_id = owner;
      if (holding) {
        const answer = view();
        held.push(() => send(200, answer));
        return;
      }
      send(200, view());
      if (changed && target) void deliver(target, [event(Number(id), 'contact.propertyChange', { propertyName: 'hubspot_owner_id', propertyValue: owner, changeSource: 'INTEGRATION' })]).catch(() => undefined);
      return;
    }
    send(405, { status: 'error' });
  });
  const url = await listenLocally(server, options.port);

  return {
    url,
    accessToken,
    clientSecret,
    contacts,
    writes,
    holdAnswers: (hold) => {
      holding = hold;
      if (hold) return;
      for (const answer of held) answer();
      held = [];
    },
    refuseNextWrites: (statuses) => {
      refusals = [...statuses];
    },
    subscribe: (targetUrl) => {
      target = targetUrl;
    },
    createContact,
    deliver,
    ownerChanged: (id, owner, changeSource = 'CRM_UI') => {
      contacts.get(String(id))!.hubspot_owner_id = owner;
      return event(id, 'contact.propertyChange', { propertyName: 'hubspot_owner_id', propertyValue: owner, changeSource });
    },
    stop: () => closeServer(server),
  };
}
