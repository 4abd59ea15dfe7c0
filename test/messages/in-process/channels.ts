import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { isPublicAddress } from '../../../src/net/public-address';
import { OUTSIDE_WHATSAPP_WINDOW, WHATSAPP_WINDOW_MS } from '../../../src/domain/channels';
import { NO_RCS_SENDER } from '../../../src/domain/rcs';
import { OPT_IN_CONFIRMATION, OPT_OUT_CONFIRMATION } from '../../../src/use-cases/carriers/keywords';
import { eventually, expectProblem, waitForStatus } from '../../support/helpers';
import { originOf, startTestStack, uniqueName, type TestApi, type TestStack } from '../../support/stack';
import { createTestCarrier, TEST_PUBLIC_BASE_URL, type TestInbound, type TestReceipt } from '../../support/test-carrier';

/*
 * WhatsApp and MMS through the carrier, as a CRM sees them (docs/messages.md, "Channels"): WhatsApp's
 * 24-hour window at accept and when due, templates with their variables, approval and the client's
 * consent, read receipts, media out and in, and a STOP on WhatsApp that blocks WhatsApp only.
 *
 * The `test.concurrent` tests each own their client, phone and template: they run side by side, first
 * (jest runs a file's concurrent tests together at the first one's place). Two run alone after them:
 * the business number (it changes the sender of every send of the business) and the templates' list (it
 * reads and deletes the templates the others made). docs/design.md, "Suite: concurrent tests inside a
 * file".
 */
const carrier = createTestCarrier();
const SHARED = carrier.sender;
let stack: TestStack;
let callbacks: TestApi;
let alice: string;
let bob: string;

beforeAll(async () => {
  // The business's own numbers send through the same test carrier (the RCS test's number).
  stack = await startTestStack({ carrier, numberCarrier: () => carrier, env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL, SHARED_SENDER_CHANNELS: 'sms,mms,whatsapp' } });
  callbacks = await stack.startApi();
  alice = stack.token('alice');
  bob = stack.token('bob');
});
afterAll(() => stack.stop());

let phones = 0;
/** A number of its own for each client: windows and opt-outs are per number. */
const newPhone = () => `+14155572${String(100 + ++phones)}`;

const inbound = (body: Partial<TestInbound> & { from: string }) =>
  carrier.post(originOf(callbacks), `/providers/${carrier.name}/inbound`, { kind: 'inbound', ref: uniqueName('in'), to: SHARED, text: 'Hola', ...body });
const receipt = (id: string, status: 'delivered' | 'read') =>
  carrier.post(originOf(callbacks), `/providers/${carrier.name}/status/${id}`, { kind: 'status', ref: `ref-${id}`, message_id: id, status });
const send = (body: Record<string, unknown>, token = alice) => stack.api('POST', '/messages', { token, body: { message_type: 'text', ...body } });
const sentTo = (id: string) => carrier.sends.filter((s) => s.id === id);

/** A client alice has texted by SMS, so that its replies are hers; with `whatsappAt`, its WhatsApp message came then. */
async function clientOfAlice(id: string, whatsappAt?: Date): Promise<string> {
  const phone = newPhone();
  expect((await stack.api('POST', '/clients', { token: alice, body: { _id: id, name: 'Ada', phone } })).status).toBe(201);
  const first = await send({ client: id, text_message: 'Thanks for your enquiry' });
  await waitForStatus(stack.api, alice, first.body._id, 'sent');
  if (whatsappAt) expect((await inbound({ from: phone, channel: 'whatsapp', at: whatsappAt.toISOString() })).status).toBe(200);
  return phone;
}

async function approvedTemplate(id: string): Promise<void> {
  carrier.approvals.set(`tpl_${id}`, 'approved');
  const put = await stack.api('PUT', `/templates/${id}`, { token: alice, body: { name: `tpl_${id}`, language: 'en_US', variables: ['1', '2'], body: 'Hi {{1}}, your visit is on {{2}}.' } });
  expect(put.status).toBe(201);
  expect(put.body.approval).toBe('approved');
}

const consent = (client: string) => stack.api('PUT', `/clients/${client}/consents/whatsapp`, { token: alice, body: { source: 'web form', at: new Date(Date.now() - 60_000).toISOString() } });

test.concurrent("a free WhatsApp text outside the 24-hour window is a 409 naming the template rule; the client's WhatsApp message opens it and the reply goes by WhatsApp", async () => {
  const phone = await clientOfAlice('c-window');
  expectProblem(await send({ client: 'c-window', channel: 'whatsapp', text_message: 'Still there?' }), 409, OUTSIDE_WHATSAPP_WINDOW);

  expect((await inbound({ from: phone, channel: 'whatsapp', text: 'Can we talk here?' })).status).toBe(200);
  const received = (await stack.api('GET', '/clients/c-window/messages?direction=inbound', { token: alice })).body.messages[0];
  expect(received).toMatchObject({ channel: 'whatsapp', text_message: 'Can we talk here?', media: [] });

  const reply = await send({ client: 'c-window', channel: 'whatsapp', text_message: 'Of course!' });
  expect(reply.status).toBe(202);
  const sent = await waitForStatus(stack.api, alice, reply.body._id, 'sent');
  expect(sent).toMatchObject({ channel: 'whatsapp', template: null, media: [], read_at: null });
  expect(sentTo(reply.body._id)).toEqual([expect.objectContaining({ channel: 'whatsapp', to: phone, text: 'Of course!', media: [] })]);
  expect(sentTo(reply.body._id)[0].template).toBeUndefined();

  // Another user of the business has no window with that client: the conversation is alice's.
  expectProblem(await send({ client_phone: phone, channel: 'whatsapp', text_message: 'Hi from Bob' }, bob), 409, OUTSIDE_WHATSAPP_WINDOW);
});

test.concurrent('a read receipt makes a WhatsApp message read, with read_at and message.read; a late delivered receipt does not move it back', async () => {
  await clientOfAlice('c-read', new Date());
  const res = await send({ client: 'c-read', channel: 'whatsapp', text_message: 'Your parcel is on its way' });
  await waitForStatus(stack.api, alice, res.body._id, 'sent');
  expect((await receipt(res.body._id, 'read')).status).toBe(200);
  const read = await waitForStatus(stack.api, alice, res.body._id, 'read');
  expect(read.read_at).toEqual(expect.any(String));
  expect(read.delivered_at).toEqual(expect.any(String));
  expect((await receipt(res.body._id, 'delivered')).status).toBe(200);
  expect((await stack.api('GET', `/messages/${res.body._id}`, { token: alice })).body.status).toBe('read');
  const events = (await stack.api('GET', '/events?type=message.read&client=c-read', { token: alice })).body.events;
  expect(events.map((e: any) => e.data._id)).toEqual([res.body._id]);
});

test.concurrent('a template goes with its variables in order; missing or unknown variables are a 400, an unapproved template and a client without consent a 409', async () => {
  await clientOfAlice('c-tpl');
  carrier.approvals.set('visit_reminder', 'pending');
  const put = await stack.api('PUT', '/templates/visit', { token: alice, body: { name: 'visit_reminder', language: 'en_US', variables: ['1', '2'], body: 'Hi {{1}}, your visit is on {{2}}.' } });
  expect(put.status).toBe(201);
  expect(put.body).toMatchObject({ _id: 'visit', name: 'visit_reminder', language: 'en_US', variables: ['1', '2'], approval: 'pending', content_sid: null });
  expectProblem(await stack.api('PUT', '/templates/bad', { token: alice, body: { content_sid: `HX${'a'.repeat(32)}` } }), 400, 'Invalid content_sid: telnyx sends a template by its name and language');

  const template = (variables: Record<string, unknown>) => ({ client: 'c-tpl', channel: 'whatsapp', template: { _id: 'visit', variables } });
  expectProblem(await send(template({ 1: 'Ada' })), 400, 'Invalid template.variables: missing 2');
  expectProblem(await send(template({ 1: 'Ada', 2: 'Tuesday', 3: 'x' })), 400, 'Invalid template.variables: unknown 3');
  expectProblem(await send({ client: 'c-tpl', channel: 'whatsapp', template: { _id: 'nope', variables: {} } }), 400, 'Template nope not found');
  expectProblem(await send({ client: 'c-tpl', text_message: 'Hi', template: { _id: 'visit', variables: {} } }), 400, 'Invalid template: only a WhatsApp message ("channel": "whatsapp") sends a template');

  expectProblem(await send(template({ 1: 'Ada', 2: 'Tuesday' })), 409, /^Client c-tpl has not opted in to WhatsApp/);
  expectProblem(await send({ client_phone: newPhone(), channel: 'whatsapp', template: { _id: 'visit', variables: { 1: 'Ada', 2: 'Tuesday' } } }), 409, /name the client/);
  expect((await consent('c-tpl')).status).toBe(200);
  expectProblem(await send(template({ 1: 'Ada', 2: 'Tuesday' })), 409, 'Template visit is not approved by WhatsApp (pending)');

  // Approved since: the next send asks the carrier again.
  carrier.approvals.set('visit_reminder', 'approved');
  const res = await send(template({ 2: 'Tuesday', 1: 'Ada' }));
  expect(res.status).toBe(202);
  const sent = await waitForStatus(stack.api, alice, res.body._id, 'sent');
  expect(sent).toMatchObject({ channel: 'whatsapp', text_message: 'Hi Ada, your visit is on Tuesday.', template: { _id: 'visit', variables: { 1: 'Ada', 2: 'Tuesday' } } });
  expect(sentTo(res.body._id)[0].template).toEqual({ ref: { name: 'visit_reminder', language: 'en_US' }, variables: [{ name: '1', value: 'Ada' }, { name: '2', value: 'Tuesday' }] });
  expect((await stack.api('GET', '/templates/visit', { token: alice })).body.approval).toBe('approved');
  // Another user's templates are not found.
  expectProblem(await stack.api('GET', '/templates/visit', { token: bob }), 404, 'Template not found');
});

test.concurrent('a delayed WhatsApp text due after the window closed ends failed with the rule and is never sent; one naming a template sends the template instead', async () => {
  await approvedTemplate('fallback');
  const phone = await clientOfAlice('c-late');
  expect((await consent('c-late')).status).toBe(200);
  // The client wrote 24 hours less 3 seconds ago: the window is open now and closed when these are due
  // (each due 4 s after its request, which comes after the window's 3 s began). Only the inbound and
  // the two requests below have to fit in those 3 s (else a 409, and the test fails).
  expect((await inbound({ from: phone, channel: 'whatsapp', at: new Date(Date.now() - WHATSAPP_WINDOW_MS + 3_000).toISOString() })).status).toBe(200);
  const plain = await send({ client: 'c-late', channel: 'whatsapp', text_message: 'See you soon', delay: '4s' });
  expect(plain.status).toBe(202);
  const withTemplate = await send({ client: 'c-late', channel: 'whatsapp', text_message: 'See you soon', delay: '4s', template: { _id: 'fallback', variables: { 1: 'Ada', 2: 'Friday' } } });
  expect(withTemplate.status).toBe(202);

  const failed = await waitForStatus(stack.api, alice, plain.body._id, 'failed');
  expect(failed.error).toContain(OUTSIDE_WHATSAPP_WINDOW);
  expect(sentTo(plain.body._id)).toEqual([]);
  const sent = await waitForStatus(stack.api, alice, withTemplate.body._id, 'sent');
  expect(sent.text_message).toBe('Hi Ada, your visit is on Friday.');
  expect(sentTo(withTemplate.body._id)).toEqual([expect.objectContaining({ channel: 'whatsapp', template: expect.objectContaining({ ref: { name: 'tpl_fallback', language: 'en_US' } }) })]);
}, 60_000);

test.concurrent('an MMS goes to the carrier with its media URLs; media that are not public https URLs, or too many, are a 400', async () => {
  const phone = newPhone();
  const media = [{ url: 'https://cdn.example.com/menu.jpg' }, { url: 'https://cdn.example.com/map.png' }];
  const res = await send({ client_phone: phone, text_message: 'Our menu and how to find us', media });
  expect(res.status).toBe(202);
  const sent = await waitForStatus(stack.api, alice, res.body._id, 'sent');
  expect(sent).toMatchObject({ channel: 'sms', media });
  expect(sentTo(res.body._id)).toEqual([expect.objectContaining({ channel: 'sms', media: media.map((m) => m.url) })]);

  expectProblem(await send({ client_phone: phone, text_message: 'x', media: [{ url: 'http://cdn.example.com/a.jpg' }] }), 400, /^Invalid media\[0\]\.url: must be a public https URL/);
  expectProblem(await send({ client_phone: phone, text_message: 'x', media: [{ url: 'https://127.0.0.1/a.jpg' }] }), 400, /^Invalid media\[0\]\.url/);
  expectProblem(await send({ client_phone: phone, text_message: 'x', media: Array.from({ length: 11 }, () => media[0]) }), 400, /^Invalid media: must be an array of at most 10/);
  expectProblem(await send({ client_phone: phone, channel: 'whatsapp', text_message: 'x', media }), 400, /^Invalid media: must be an array of at most 1 /);
  expectProblem(await send({ client_phone: phone, channel: 'fax', text_message: 'x' }), 400, 'Invalid channel: must be "sms", "whatsapp" or "rcs"');
});

test.concurrent('a media URL whose name resolves to a private, loopback or link-local address is a 400 at accept, naming it; the same name resolving publicly is accepted', async () => {
  // The resolver the accept asks, standing in for DNS: nip.io-style names answer with the address they spell.
  const answers: Record<string, string> = { '127.0.0.1.nip.io': '127.0.0.1', 'localtest.me': '::1', 'instance-data': '169.254.169.254', 'files.example.test': '10.0.0.7', 'fd.example.test': 'fd00::7', 'cdn.example.test': '93.184.216.34' };
  const resolving = await stack.startApi({ hostLookup: async (host) => (answers[host] ? [{ address: answers[host] }] : Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }))) });
  try {
    const phone = newPhone();
    const sendVia = (media: { url: string }[], path = '/messages') =>
      resolving.api('POST', path, { token: alice, body: path === '/messages' ? { message_type: 'text', client_phone: phone, text_message: 'x', media } : { message_type: 'text', text_message: 'x', media, recipients: [{ client_phone: phone }] } });
    for (const [host, address] of Object.entries(answers).filter(([host]) => host !== 'cdn.example.test')) {
      expectProblem(await sendVia([{ url: `https://${host}/a.jpg` }]), 400, `Invalid media[0].url: must be a public https URL; ${host} resolves to ${address}, a private, loopback or link-local address`);
    }
    // The second file is the one refused; a campaign shares its media, so the whole batch is refused.
    expectProblem(await sendVia([{ url: 'https://cdn.example.test/a.jpg' }, { url: 'https://127.0.0.1.nip.io/b.jpg' }]), 400, /^Invalid media\[1\]\.url: must be a public https URL; 127\.0\.0\.1\.nip\.io resolves to 127\.0\.0\.1/);
    expectProblem(await sendVia([{ url: 'https://instance-data/a.jpg' }], '/messages/batch'), 400, /^Invalid media\[0\]\.url: must be a public https URL; instance-data resolves to 169\.254\.169\.254/);
    expect((await sendVia([{ url: 'https://cdn.example.test/a.jpg' }])).status).toBe(202);
    // A name that does not resolve here is left to the carrier, whose DNS is not ours.
    expect((await sendVia([{ url: 'https://unknown.example.test/a.jpg' }])).status).toBe(202);
  } finally {
    await resolving.stop();
  }
});

test.concurrent("a media URL naming this machine by a name its own resolver knows (the host's name in /etc/hosts) is a 400 at accept", async () => {
  const host = hostname().toLowerCase();
  const [{ address }] = await lookup(host, { all: true });
  // The premise: this machine's name resolves to one of its own addresses, never a public one.
  expect(isPublicAddress(address)).toBe(false);
  expectProblem(await send({ client_phone: newPhone(), text_message: 'x', media: [{ url: `https://${host}/a.jpg` }] }), 400, new RegExp(`^Invalid media\\[0\\]\\.url: must be a public https URL; ${host.replace(/\./g, '\\.')} resolves to `));
});

test.concurrent("an inbound MMS keeps its media, which the API streams with the carrier's credentials; another user's request is a 404", async () => {
  const phone = await clientOfAlice('c-mms');
  const url = `https://media.carrier.test/${uniqueName('file')}`;
  carrier.files.set(url, { contentType: 'image/jpeg', bytes: Buffer.from('not really a jpeg') });
  expect((await inbound({ from: phone, text: '', media: [{ url, content_type: 'image/jpeg', size: 17 }] })).status).toBe(200);
  const message = (await stack.api('GET', '/clients/c-mms/messages?direction=inbound', { token: alice })).body.messages[0];
  expect(message.media).toEqual([{ url: `/ext/v2/${stack.business}/messages/${message._id}/media/0`, content_type: 'image/jpeg', size: 17 }]);

  const fetchMedia = (n: number, token = alice) => fetch(`${stack.baseUrl}/messages/${message._id}/media/${n}`, { headers: { authorization: `Bearer ${token}` } });
  const file = await fetchMedia(0);
  expect(file.status).toBe(200);
  expect(file.headers.get('content-type')).toBe('image/jpeg');
  expect(Buffer.from(await file.arrayBuffer()).toString()).toBe('not really a jpeg');
  expect(carrier.fetched).toContain(url);
  expect((await fetchMedia(1)).status).toBe(404);
  expect((await fetchMedia(0, bob)).status).toBe(404);
  carrier.files.delete(url);
  const gone = await fetchMedia(0);
  expect(gone.status).toBe(404);
  expect(((await gone.json()) as { detail: string }).detail).toBe('Media no longer available at the carrier');
});

test.concurrent('a STOP on WhatsApp opts the client out of WhatsApp only, and the confirmation goes back by WhatsApp', async () => {
  const phone = await clientOfAlice('c-stop', new Date());
  expect((await inbound({ from: phone, channel: 'whatsapp', text: 'STOP' })).status).toBe(200);
  await eventually(async () => carrier.replies.some((r) => r.to === phone && r.channel === 'whatsapp'));
  expectProblem(await send({ client: 'c-stop', channel: 'whatsapp', text_message: 'Are you sure?' }), 409, 'Recipient has opted out of WhatsApp messages');
  const sms = await send({ client: 'c-stop', text_message: 'Your order shipped' });
  expect(sms.status).toBe(202);
  await waitForStatus(stack.api, alice, sms.body._id, 'sent');
});

test.concurrent('consents are listed, withdrawn and erased with their client; another channel is a 404', async () => {
  await clientOfAlice('c-consent');
  expectProblem(await stack.api('PUT', '/clients/c-consent/consents/whatsapp', { token: alice, body: {} }), 400, /^Invalid source/);
  expectProblem(await stack.api('PUT', '/clients/c-consent/consents/whatsapp', { token: alice, body: { source: 'x', at: '2999-01-01T00:00:00Z' } }), 400, /^Invalid at/);
  expectProblem(await stack.api('PUT', '/clients/c-consent/consents/sms', { token: alice, body: { source: 'x' } }), 404);
  expect((await consent('c-consent')).body).toMatchObject({ channel: 'whatsapp', source: 'web form' });
  expect((await stack.api('GET', '/clients/c-consent/consents', { token: alice })).body.consents).toEqual([expect.objectContaining({ channel: 'whatsapp' })]);
  expectProblem(await stack.api('GET', '/clients/c-consent/consents', { token: bob }), 404, 'Client not found');
  expect((await stack.api('DELETE', '/clients/c-consent/consents/whatsapp', { token: alice })).status).toBe(204);
  expect((await stack.api('GET', '/clients/c-consent/consents', { token: alice })).body.consents).toEqual([]);

  expect((await consent('c-consent')).status).toBe(200);
  const { pk } = (await stack.prisma.client.findFirst({ where: { business: stack.business, id: 'c-consent' } }))!;
  expect((await stack.api('DELETE', '/clients/c-consent', { token: alice })).status).toBe(204);
  expect(await stack.prisma.clientConsent.count({ where: { clientPk: pk } })).toBe(0);
});

test("a business number that does not carry a channel refuses it, naming the sender", async () => {
  const number = '+15550002999';
  await stack.prisma.businessNumber.create({ data: { business: stack.business, number, carrier: carrier.name, channels: ['sms'] } });
  try {
    const phone = newPhone();
    expectProblem(await send({ client_phone: phone, text_message: 'Menu', media: [{ url: 'https://cdn.example.com/menu.jpg' }] }), 409, `Sender ${number} does not carry MMS`);
    expectProblem(await send({ client_phone: phone, channel: 'whatsapp', text_message: 'Hi' }), 409, `Sender ${number} does not carry WhatsApp`);
    expect((await send({ client_phone: phone, text_message: 'Plain SMS' })).status).toBe(202);
  } finally {
    await stack.prisma.businessNumber.updateMany({ where: { number }, data: { activeSlot: null, retiredAt: new Date() } });
  }
});

test('RCS: a 409 without an RCS sender; from a number that carries rcs, suggestions handed over, the fallback shown as delivered_channel sms, a tap in the conversation, STOP on RCS stops SMS too', async () => {
  const phone = newPhone();
  expect((await stack.api('POST', '/clients', { token: alice, body: { _id: 'c-rcs', name: 'Ada', phone } })).status).toBe(201);
  expectProblem(await send({ client: 'c-rcs', channel: 'rcs', text_message: 'Table at 7?' }), 409, NO_RCS_SENDER(SHARED));
  const number = '+15550003999';
  await stack.prisma.businessNumber.create({ data: { business: stack.business, number, carrier: carrier.name, channels: ['sms', 'mms', 'rcs'], rcsAgent: 'acme_rcs_agent' } });
  try {
    const asked = await send({ client: 'c-rcs', channel: 'rcs', text_message: 'Table at 7?', suggestions: [{ text: 'Yes', postback_data: 'confirm' }, { text: 'Later' }] });
    expect(asked.status).toBe(202);
    const sent = await waitForStatus(stack.api, alice, asked.body._id, 'sent');
    expect(sent).toMatchObject({ channel: 'rcs', from: number, delivered_channel: null, suggestions: [{ text: 'Yes', postback_data: 'confirm' }, { text: 'Later', postback_data: 'Later' }] });
    expect(sentTo(asked.body._id)).toEqual([expect.objectContaining({ channel: 'rcs', to: phone, suggestions: [{ text: 'Yes', postbackData: 'confirm' }, { text: 'Later', postbackData: 'Later' }] })]);

    // The handset took no RCS: the carrier's own fallback delivered it by SMS, under a reference of its own.
    const status = (id: string, body: Partial<TestReceipt>) => carrier.post(originOf(callbacks), `/providers/${carrier.name}/status/${id}`, { kind: 'status', ref: `ref-${id}`, message_id: id, status: 'delivered', ...body });
    expect((await status(asked.body._id, { ref: 'fallback-sms-1', delivered_channel: 'sms', fallback: true })).status).toBe(200);
    expect((await stack.api('GET', `/messages/${asked.body._id}`, { token: alice })).body).toMatchObject({ status: 'delivered', delivered_channel: 'sms', provider_ref: `ref-${asked.body._id}` });

    // A campaign on RCS: each recipient an RCS message with the campaign's suggestions; this one delivered and read on RCS.
    const batch = await stack.api('POST', '/messages/batch', { token: alice, body: { message_type: 'text', channel: 'rcs', text_message: 'Our terrace opens today', suggestions: [{ text: 'Book' }], recipients: [{ client: 'c-rcs' }] } });
    expect(batch.status).toBe(202);
    const [member] = batch.body.results;
    await waitForStatus(stack.api, alice, member._id, 'sent');
    expect(sentTo(member._id)).toEqual([expect.objectContaining({ channel: 'rcs', suggestions: [{ text: 'Book', postbackData: 'Book' }] })]);
    await status(member._id, { delivered_channel: 'rcs' });
    await status(member._id, { status: 'read', delivered_channel: 'rcs' });
    expect((await stack.api('GET', `/messages/${member._id}`, { token: alice })).body).toMatchObject({ status: 'read', delivered_channel: 'rcs', read_at: expect.any(String) });

    // The client taps a suggestion: an inbound RCS message to our agent, in the conversation of the number.
    expect((await inbound({ from: phone, to: 'acme_rcs_agent', channel: 'rcs', text: 'Yes', suggestion: { text: 'Yes', postback_data: 'confirm' } })).status).toBe(200);
    const [tap] = (await stack.api('GET', '/clients/c-rcs/messages?direction=inbound', { token: alice })).body.messages;
    expect(tap).toMatchObject({ channel: 'rcs', text_message: 'Yes', to: number, delivered_channel: 'rcs', suggestions: [{ text: 'Yes', postback_data: 'confirm' }], conversation: sent.conversation });
    const received = (await stack.api('GET', '/events?type=message.received&client=c-rcs', { token: alice })).body.events;
    expect(received.at(-1)?.data).toMatchObject({ _id: tap._id, channel: 'rcs' });

    // STOP on RCS opts the phone out of the pair: RCS and SMS are refused; the confirmation goes by SMS. START by SMS lifts both.
    expect((await inbound({ from: phone, to: 'acme_rcs_agent', channel: 'rcs', text: 'STOP' })).status).toBe(200);
    expect(carrier.replies).toContainEqual({ to: phone, text: OPT_OUT_CONFIRMATION });
    expectProblem(await send({ client: 'c-rcs', channel: 'rcs', text_message: 'Are you sure?' }), 409, 'Recipient has opted out of text messages');
    expectProblem(await send({ client: 'c-rcs', text_message: 'Are you sure?' }), 409, 'Recipient has opted out of text messages');
    expect((await inbound({ from: phone, to: number, text: 'START' })).status).toBe(200);
    expect(carrier.replies).toContainEqual({ to: phone, text: OPT_IN_CONFIRMATION });
    expect((await send({ client: 'c-rcs', channel: 'rcs', text_message: 'Welcome back' })).status).toBe(202);
    // And STOP by the SMS of the pair stops RCS as well.
    expect((await inbound({ from: phone, to: number, text: 'STOP' })).status).toBe(200);
    expectProblem(await send({ client: 'c-rcs', channel: 'rcs', text_message: 'Still there?' }), 409, 'Recipient has opted out of text messages');
  } finally {
    await stack.prisma.businessNumber.updateMany({ where: { number }, data: { activeSlot: null, retiredAt: new Date() } });
  }
});

test.concurrent("a WhatsApp campaign sends its template to each client who opted in, and refuses the others with the single send's 409", async () => {
  await approvedTemplate('campaign');
  await clientOfAlice('c-camp-1');
  await clientOfAlice('c-camp-2');
  expect((await consent('c-camp-1')).status).toBe(200);
  const res = await stack.api('POST', '/messages/batch', {
    token: alice,
    body: { message_type: 'text', channel: 'whatsapp', template: { _id: 'campaign', variables: { 1: 'Ada', 2: 'Monday' } }, recipients: [{ client: 'c-camp-1' }, { client: 'c-camp-2' }] },
  });
  expect(res.status).toBe(202);
  const [accepted, refused] = res.body.results;
  expect(refused).toMatchObject({ index: 1, status: 'rejected', error: { status: 409, detail: expect.stringMatching(/^Client c-camp-2 has not opted in to WhatsApp/) } });
  const sent = await waitForStatus(stack.api, alice, accepted._id, 'sent');
  expect(sent).toMatchObject({ channel: 'whatsapp', batch_id: res.body.batch_id, text_message: 'Hi Ada, your visit is on Monday.' });
  expect(sentTo(accepted._id)).toEqual([expect.objectContaining({ channel: 'whatsapp', template: expect.objectContaining({ ref: { name: 'tpl_campaign', language: 'en_US' } }) })]);
});

test.concurrent('a delayed template to a client who withdrew its WhatsApp consent meanwhile ends failed, never sent', async () => {
  await approvedTemplate('withdrawn');
  await clientOfAlice('c-withdraw');
  expect((await consent('c-withdraw')).status).toBe(200);
  // Due 2 s on: the withdrawal, one request, lands before it (else it is sent, and the test fails).
  const res = await send({ client: 'c-withdraw', channel: 'whatsapp', delay: '2s', template: { _id: 'withdrawn', variables: { 1: 'Ada', 2: 'Sunday' } } });
  expect(res.status).toBe(202);
  expect((await stack.api('DELETE', '/clients/c-withdraw/consents/whatsapp', { token: alice })).status).toBe(204);
  const failed = await waitForStatus(stack.api, alice, res.body._id, 'failed');
  expect(failed).toMatchObject({ error: 'Not sent: the client withdrew its WhatsApp consent', error_code: 'whatsapp-consent' });
  expect(sentTo(res.body._id)).toEqual([]);
});

test("templates are listed oldest first a page at a time, and are the caller's own", async () => {
  const mine = (await stack.api('GET', '/templates?limit=100', { token: alice })).body.templates.map((t: any) => t._id);
  expect(mine.length).toBeGreaterThanOrEqual(2);
  const first = await stack.api('GET', '/templates?limit=1', { token: alice });
  expect(first.body.templates.map((t: any) => t._id)).toEqual(mine.slice(0, 1));
  const second = await stack.api('GET', `/templates?limit=1&cursor=${first.body.next_cursor}`, { token: alice });
  expect(second.body.templates.map((t: any) => t._id)).toEqual(mine.slice(1, 2));
  expectProblem(await stack.api('GET', '/templates?cursor=nope', { token: alice }), 400, 'Invalid cursor: pass next_cursor from the previous page');
  expect((await stack.api('GET', '/templates', { token: bob })).body.templates).toEqual([]);
  expect((await stack.api('DELETE', `/templates/${mine[0]}`, { token: alice })).status).toBe(204);
  expectProblem(await stack.api('DELETE', `/templates/${mine[0]}`, { token: alice }), 404, 'Template not found');
});
