import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from 'pg';
import { OUTSIDE_WHATSAPP_WINDOW, WHATSAPP_WINDOW_MS } from '../../../src/domain/channels';
import { SIMULATOR_TEMPLATES } from '../../../src/stack/simulator/content-api';
import { apiClient, type ApiResponse } from '../../support/http';
import { eventually, expectProblem, waitForStatus } from '../../support/helpers';
import type { RunningProcess } from '../../support/process';
import type { SharedNpmStart } from '../../support/shared-npm-start';

/*
 * Issue 40's "done when", from outside, on `npm start` with its simulator: only real HTTP to the API and
 * to the simulator (its Twilio-shaped API and its own doors), as a CRM and the people it texts would
 * meet them. A WhatsApp reply inside the 24-hour window goes and is read; after the window a free text
 * is refused; templates with their variables, approval and the client's consent; an MMS reaches the
 * carrier with its media URLs; an inbound MMS's file is fetched through the API; a STOP on WhatsApp
 * blocks WhatsApp only.
 *
 * One step is not HTTP: WhatsApp's 24 hours cannot pass in a test and Twilio's inbound callback carries
 * no time (the service stamps an inbound message when it comes), so the client's stored WhatsApp message
 * is backdated in npm start's own PostgreSQL — connected to as docs/operations.md says to look at the
 * data by hand (the port on the PostgreSQL line, crm_app's password from the passwords file) — and the
 * simulator's window with its own door, to the same time.
 */

const BUSINESS = 'whatsapp';
const PHONES = { window: '+14155567001', mms: '+14155567002', stop: '+14155567003' };
/** An inbound MMS's files: a 1×1 PNG and a contact card (a text type, which must come back without a charset added). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const VCARD = Buffer.from('BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Grace Hopper\r\nEND:VCARD\r\n');
const { approved: APPROVED, pending: PENDING } = SIMULATOR_TEMPLATES;

let stack: RunningProcess;
let dataDir: string;
let origin: string;
let token: string;
let call: (method: string, path: string, body?: unknown) => Promise<ApiResponse>;
let simulator: { url: string; accountSid: string; number: string; token: string };

export function whatsappJourney(shared: () => SharedNpmStart): void {
  test.concurrent("npm start with the simulator: WhatsApp's window, read receipts, templates (variables, approval, consent), MMS out and in, and a STOP on WhatsApp that blocks WhatsApp only", async () => {
    ({ stack, dataDir, origin } = shared());
    token = shared().tokenOf('whatsapp-user');
    const api = apiClient(origin, BUSINESS);
    call = (method, path, body) => api(method, path, { token, body });
    // Where npm start's simulator listens and its account, as `npm run sms` finds them.
    const lock = JSON.parse(await readFile(join(dataDir, 'stack.lock'), 'utf8'));
    simulator = { ...lock.simulator, token: (await readFile(join(dataDir, 'dev-simulator-token'), 'utf8')).trim() };

    await windowAndReadReceipts();
    await templates();
    await mmsOutAndIn();
    await stopOnWhatsApp();
  }, 300_000);
}

/** A request to the simulator with its account's Basic credentials; redirects are answered, not followed. */
async function simulated(method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; body: any }> {
  const authorization = `Basic ${Buffer.from(`${simulator.accountSid}:${simulator.token}`).toString('base64')}`;
  const res = await fetch(`${simulator.url}${path}`, {
    method,
    headers: { authorization, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'manual',
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text && res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text };
}

/** A person writes to the shared sender through the simulator's trigger (what `npm run sms` does); the stack must take it. */
async function personWrites(message: { from: string; text?: string; channel?: 'sms' | 'whatsapp'; media?: { content_type: string; data: string }[] }) {
  const res = await simulated('POST', '/simulator/sms', message);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ to: simulator.number, channel: message.channel ?? 'sms', answer: 200 });
  return res.body;
}

const simulatorAccount = () => `/2010-04-01/Accounts/${simulator.accountSid}`;
/** What the simulator holds under Twilio's message list for `to` (`whatsapp:`-prefixed for WhatsApp), newest first. */
const simulatorMessagesTo = async (to: string) => (await simulated('GET', `${simulatorAccount()}/Messages.json?To=${encodeURIComponent(to)}&PageSize=100`)).body.messages as any[];
/** The simulator's record of the message the service handed it (by the service's provider_ref). */
const simulatorMessage = async (ref: string) => (await simulated('GET', `${simulatorAccount()}/Messages/${ref}.json`)).body;

const send = (body: Record<string, unknown>) => call('POST', '/messages', { message_type: 'text', ...body });
const statusOf = (id: string, status: string, timeoutMs?: number) => waitForStatus((method, path) => call(method, path), token, id, status, timeoutMs);
const latestInbound = async (client: string) => (await call('GET', `/clients/${client}/messages?direction=inbound`)).body.messages[0];
/** The types of the events about message `id`, oldest first. */
const eventsOf = async (client: string, id: string) => (await call('GET', `/events?client=${client}&limit=100`)).body.events.filter((e: any) => e.data._id === id).map((e: any) => e.type);

/** A client the caller has texted by SMS (delivered), so that its messages to the shared sender are the caller's. */
async function clientTextedBySms(id: string, phone: string): Promise<void> {
  expect((await call('POST', '/clients', { _id: id, name: 'Ada', phone })).status).toBe(201);
  const hello = await send({ client: id, text_message: 'Thanks for your enquiry' });
  expect(hello.status).toBe(202);
  await statusOf(hello.body._id, 'delivered');
}

/** npm start's PostgreSQL, as docs/operations.md says to look at it by hand: the PostgreSQL line's port, crm_app's password from the passwords file. */
async function stackDatabase(): Promise<Client> {
  const line = /PostgreSQL +embedded on (127\.0\.0\.1):(\d+) as (\w+)/.exec(stack.output());
  if (!line) throw new Error(`no PostgreSQL line in npm start's output:\n${stack.output()}`);
  const passwords = JSON.parse(await readFile(join(dataDir, 'postgres-passwords.json'), 'utf8'));
  const client = new Client({ host: line[1], port: Number(line[2]), user: line[3], password: passwords[line[3]], database: 'crm' });
  await client.connect();
  return client;
}

/** A WhatsApp reply inside the window goes and is read; after 24 hours a free text is a 409 naming the template rule, and one due after the window closed fails unsent. */
async function windowAndReadReceipts(): Promise<void> {
  const phone = PHONES.window;
  await clientTextedBySms('wa-window', phone);
  // The client never wrote on WhatsApp: no window yet.
  expectProblem(await send({ client: 'wa-window', channel: 'whatsapp', text_message: 'Still there?' }), 409, OUTSIDE_WHATSAPP_WINDOW);

  await personWrites({ from: phone, channel: 'whatsapp', text: 'Can we talk here?' });
  const inbound = await latestInbound('wa-window');
  expect(inbound).toMatchObject({ direction: 'inbound', channel: 'whatsapp', text_message: 'Can we talk here?', media: [] });

  const reply = await send({ client: 'wa-window', channel: 'whatsapp', text_message: 'Of course!' });
  expect(reply.status).toBe(202);
  // sent, delivered, then read: the simulator's receipts (read 2 s after delivered).
  const read = await statusOf(reply.body._id, 'read');
  expect(read).toMatchObject({ channel: 'whatsapp', text_message: 'Of course!', template: null, media: [], read_at: expect.any(String), delivered_at: expect.any(String) });
  expect(Date.parse(read.read_at)).toBeGreaterThanOrEqual(Date.parse(read.delivered_at));
  expect(await eventsOf('wa-window', reply.body._id)).toEqual(expect.arrayContaining(['message.sent', 'message.delivered', 'message.read']));
  const types = await eventsOf('wa-window', reply.body._id);
  expect(types.indexOf('message.sent')).toBeLessThan(types.indexOf('message.delivered'));
  expect(types.indexOf('message.delivered')).toBeLessThan(types.indexOf('message.read'));
  expect(await simulatorMessage(read.provider_ref)).toMatchObject({ to: `whatsapp:${phone}`, from: `whatsapp:${simulator.number}`, body: 'Of course!', status: 'read' });

  // The carrier's window closed while the service's record still says open: the simulator refuses it (63016), in the service's words.
  const closed = await simulated('POST', '/simulator/whatsapp-window', { from: phone, last_inbound_at: null });
  expect(closed.body).toMatchObject({ from: phone, to: simulator.number, open: false });
  const refused = await send({ client: 'wa-window', channel: 'whatsapp', text_message: 'Hello?' });
  expect(refused.status).toBe(202);
  const failed = await statusOf(refused.body._id, 'failed');
  expect(failed.error).toContain(OUTSIDE_WHATSAPP_WINDOW);

  // The client last wrote 24 hours less 5 seconds ago, for the carrier and for the service: the window closes within the
  // test, with time to accept a message before (the rule's edges are test/messages/in-process/channels.ts's, in process).
  const backdated = new Date(Date.now() - WHATSAPP_WINDOW_MS + 5_000);
  expect((await simulated('POST', '/simulator/whatsapp-window', { from: phone, last_inbound_at: backdated.toISOString() })).body.open).toBe(true);
  const database = await stackDatabase();
  try {
    const updated = await database.query("UPDATE messages SET received_at = $1 WHERE id = $2 AND direction = 'inbound' AND channel = 'whatsapp'", [backdated, inbound._id]);
    expect(updated.rowCount).toBe(1);
  } finally {
    await database.end();
  }
  // Accepted inside the window, due after it closed.
  const late = await send({ client: 'wa-window', channel: 'whatsapp', text_message: 'See you soon', delay: '7s' });
  expect(late.status).toBe(202);

  await new Promise((resolve) => setTimeout(resolve, Math.max(0, backdated.getTime() + WHATSAPP_WINDOW_MS - Date.now() + 500)));
  expectProblem(await send({ client: 'wa-window', channel: 'whatsapp', text_message: 'Are you there?' }), 409, OUTSIDE_WHATSAPP_WINDOW);
  const lateFailed = await statusOf(late.body._id, 'failed', 60_000);
  expect(lateFailed).toMatchObject({ error: OUTSIDE_WHATSAPP_WINDOW, error_code: 'whatsapp-window', provider_ref: null });
  expect((await simulatorMessagesTo(`whatsapp:${phone}`)).map((m) => m.body)).not.toContain('See you soon');
  // SMS has no window.
  const sms = await send({ client: 'wa-window', text_message: 'Call us when you can' });
  expect(sms.status).toBe(202);
  await statusOf(sms.body._id, 'delivered');
}

/** Templates by the simulator's content sids: missing variables are a 400, a pending one and a client without consent 409s; with consent the approved one goes outside the window and is read. */
async function templates(): Promise<void> {
  // wa-window's window is closed (the test above): only a template may go.
  const visit = await call('PUT', '/templates/visit', { content_sid: APPROVED.sid, variables: ['1', '2'], body: APPROVED.body });
  expect(visit.status).toBe(201);
  expect(visit.body).toMatchObject({ _id: 'visit', content_sid: APPROVED.sid, variables: ['1', '2'], approval: 'approved' });
  const offer = await call('PUT', '/templates/offer', { content_sid: PENDING.sid, variables: ['1'], body: PENDING.body });
  expect(offer.status).toBe(201);
  expect(offer.body).toMatchObject({ _id: 'offer', content_sid: PENDING.sid, approval: 'pending' });

  const template = (_id: string, variables: Record<string, string>) => send({ client: 'wa-window', channel: 'whatsapp', template: { _id, variables } });
  expectProblem(await template('visit', { 1: 'Ada' }), 400, 'Invalid template.variables: missing 2');
  expectProblem(await template('visit', { 1: 'Ada', 2: 'Tuesday' }), 409, /^Client wa-window has not opted in to WhatsApp: record its consent first/);

  const consent = await call('PUT', '/clients/wa-window/consents/whatsapp', { source: 'web form' });
  expect(consent.status).toBe(200);
  expect(consent.body).toMatchObject({ channel: 'whatsapp', source: 'web form', at: expect.any(String) });
  expectProblem(await template('offer', { 1: '20% off' }), 409, 'Template offer is not approved by WhatsApp (pending)');

  const res = await template('visit', { 1: 'Ada', 2: 'Tuesday' });
  expect(res.status).toBe(202);
  const read = await statusOf(res.body._id, 'read');
  expect(read).toMatchObject({ channel: 'whatsapp', text_message: 'Hello Ada, your appointment is on Tuesday.', template: { _id: 'visit', variables: { 1: 'Ada', 2: 'Tuesday' } }, read_at: expect.any(String) });
  expect(await simulatorMessage(read.provider_ref)).toMatchObject({ to: `whatsapp:${PHONES.window}`, body: 'Hello Ada, your appointment is on Tuesday.', status: 'read' });
}

/** An MMS reaches the simulator with its media URLs; an inbound MMS's file is fetched through the API, the same bytes and type. */
async function mmsOutAndIn(): Promise<void> {
  const phone = PHONES.mms;
  expect((await call('POST', '/clients', { _id: 'wa-mms', name: 'Grace', phone })).status).toBe(201);
  const media = [{ url: 'https://cdn.example.com/menu.jpg' }, { url: 'https://cdn.example.com/map.png' }];
  const mms = await send({ client: 'wa-mms', text_message: 'Our menu and how to find us', media });
  expect(mms.status).toBe(202);
  const delivered = await statusOf(mms.body._id, 'delivered');
  expect(delivered).toMatchObject({ channel: 'sms', media });

  // The simulator's record: an MMS (MM…) to the phone, and its Media subresource lists the URLs it was sent, in order.
  expect(delivered.provider_ref).toMatch(/^MM[0-9a-f]{32}$/);
  expect(await simulatorMessage(delivered.provider_ref)).toMatchObject({ to: phone, from: simulator.number, body: 'Our menu and how to find us', num_media: '2' });
  const list = (await simulated('GET', `${simulatorAccount()}/Messages/${delivered.provider_ref}/Media.json`)).body.media_list as any[];
  expect(list.map((m) => m.content_type)).toEqual(['image/jpeg', 'image/png']);
  const locations = await Promise.all(list.map(async (m) => (await simulated('GET', m.uri.replace(/\.json$/, ''))).headers.get('location')));
  expect(locations).toEqual(media.map((m) => m.url));

  // The client answers with a picture and a contact card.
  const files = [
    { content_type: 'image/png', bytes: PNG },
    { content_type: 'text/vcard', bytes: VCARD },
  ];
  const sentIn = await personWrites({ from: phone, text: 'Here is the entrance', media: files.map((f) => ({ content_type: f.content_type, data: f.bytes.toString('base64') })) });
  expect(sentIn.media).toHaveLength(2);
  const inbound = await latestInbound('wa-mms');
  expect(inbound).toMatchObject({ channel: 'sms', text_message: 'Here is the entrance' });
  expect(inbound.media).toEqual(files.map((f, n) => ({ url: `/ext/v2/${BUSINESS}/messages/${inbound._id}/media/${n}`, content_type: f.content_type, size: null })));
  const fetchMedia = (n: number) => fetch(`${origin}/ext/v2/${BUSINESS}/messages/${inbound._id}/media/${n}`, { headers: { authorization: `Bearer ${token}` } });
  for (const [n, expected] of files.entries()) {
    const file = await fetchMedia(n);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe(expected.content_type);
    expect(Buffer.from(await file.arrayBuffer()).equals(expected.bytes)).toBe(true);
  }
  expect((await fetchMedia(2)).status).toBe(404);
}

/** A STOP on WhatsApp blocks WhatsApp only: its confirmation goes back by WhatsApp, a WhatsApp send is a 409, SMS still goes. */
async function stopOnWhatsApp(): Promise<void> {
  const phone = PHONES.stop;
  await clientTextedBySms('wa-stop', phone);
  await personWrites({ from: phone, channel: 'whatsapp', text: 'STOP' });
  await eventually(async () => (await simulatorMessagesTo(`whatsapp:${phone}`)).some((m) => m.direction === 'outbound-api' && m.from === `whatsapp:${simulator.number}`), 20_000);
  expect((await call('GET', `/opt-outs?phone=${encodeURIComponent(phone)}`)).body.opt_outs).toEqual([expect.objectContaining({ channel: 'whatsapp' })]);

  expectProblem(await send({ client: 'wa-stop', channel: 'whatsapp', text_message: 'Are you sure?' }), 409, 'Recipient has opted out of WhatsApp messages');
  const sms = await send({ client: 'wa-stop', text_message: 'Your order shipped' });
  expect(sms.status).toBe(202);
  await statusOf(sms.body._id, 'delivered');
}
