import { randomBytes } from 'node:crypto';
import { httpMetrics, type HttpMetrics } from '../../../src/api';
import { createTwilioCarrier } from '../../../src/carriers/twilio';
import { adminCredentialsOf, loadConfig, requireBusinessNumbersOf } from '../../../src/config/index';
import { generateNamedKey } from '../../../src/config/key-list';
import { eventually, expectProblem, memoryLogger, waitForStatus } from '../../support/helpers';
import { startFakeTwilio, twilioSignature, type FakeTwilio } from '../../support/fake-twilio';
import { secondsAheadOfRate } from '../../support/pacing';
import { startTestStack, uniqueName, type TestApi, type TestStack } from '../../support/stack';

/**
 * Each business its own numbers: two businesses, each with its own number and its own Twilio subaccount,
 * texting the same phone. Sends go out from the business's number with its subaccount; each reply, STOP
 * and receipt lands only in the business whose number it concerns; the credentials are sealed at rest
 * and never answered back or logged. Callbacks are posted here as Twilio posts them, signed with the
 * token of the account the number belongs to.
 *
 * The first four tests build the numbers the others use and read all of a user's texts: they run one
 * after the other. The `test.concurrent` ones each own their business, number or phones and run side by
 * side after them (jest runs a file's concurrent tests together at the first one's place); the pacing
 * test, which times every send of acme's numbers, runs alone after them (docs/design.md, "Suite:
 * concurrent tests inside a file").
 */
const PUBLIC = 'https://sms.example.test';
const ADMIN_TOKEN = randomBytes(24).toString('base64url');
const SECRETS_KEY = generateNamedKey('test');
const hex = () => randomBytes(16).toString('hex');
// Numbers of this suite only: the test database is shared with suites running beside it.
const prefix = `+1628${String(100 + Math.floor(Math.random() * 899))}`;
const SHARED = `${prefix}0000`;
const ACME_NUMBER = `${prefix}0001`;
const ACME_SECOND = `${prefix}0002`;
const GLOBEX_NUMBER = `${prefix}0003`;
const HOOLI_FIRST = `${prefix}0004`;
const HOOLI_SECOND = `${prefix}0005`;
const STRICT_NUMBER = `${prefix}0006`;
const REGISTERED_NUMBER = `${prefix}0007`;
const DELAYED_NUMBER = `${prefix}0008`;
const RCS_NUMBER = `${prefix}0009`;
const ACME_ACCOUNT = { accountSid: `AC${hex()}`, authToken: hex() };
const GLOBEX_ACCOUNT = { accountSid: `AC${hex()}`, authToken: hex() };
const PHONE = '+14155550177';

const log = memoryLogger();
let fake: FakeTwilio;
let stack: TestStack;
let callbacks: TestApi;
let metrics: HttpMetrics;
let origin: string;
const acme = uniqueName('acme');
const globex = uniqueName('globex');
let userX: string;
let userY: string;

const inBusiness = (business: string) => (method: string, path: string, options: { token: string; body?: unknown }) =>
  stack.api(method, `//ext/v2/${business}${path}`, options);
const admin = (method: string, path: string, body?: unknown, token: string | null = ADMIN_TOKEN, at = origin) =>
  fetch(`${at}/admin${path}`, {
    method,
    headers: { ...(token && { authorization: `Bearer ${token}` }), ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (res) => ({ status: res.status, body: (res.status === 204 ? null : await res.json()) as any }));

/** Posts a Twilio callback to our route, signed with `authToken` over the public URL, as Twilio would. */
async function postTwilio(path: string, params: Record<string, string>, authToken: string): Promise<number> {
  const res = await fetch(`${originOf(callbacks)}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(authToken, `${PUBLIC}${path}`, params) },
    body: new URLSearchParams(params).toString(),
  });
  return res.status;
}
const originOf = (api: TestApi) => api.baseUrl.replace(/\/ext\/v2\/.*$/, '');

let texts = 0;
const textFrom = (phone: string, to: string, body: string, account: { accountSid: string; authToken: string }) => {
  const sid = `SM${hex()}`;
  texts++;
  return postTwilio('/providers/twilio/inbound', { AccountSid: account.accountSid, MessageSid: sid, SmsMessageSid: sid, From: phone, To: to, Body: body, SmsStatus: 'received' }, account.authToken);
};

async function send(business: string, token: string, phone: string, text: string): Promise<any> {
  const res = await inBusiness(business)('POST', '/messages', { token, body: { message_type: 'text', client_phone: phone, text_message: text } });
  expect(res.status).toBe(202);
  return waitForStatus(inBusiness(business), token, res.body._id, 'sent');
}

const inboundTexts = async (business: string, token: string) =>
  (await inBusiness(business)('GET', '/messages?direction=inbound', { token })).body.messages.map((m: any) => m.text_message);

beforeAll(async () => {
  fake = await startFakeTwilio({ from: [SHARED, ACME_NUMBER, ACME_SECOND, GLOBEX_NUMBER, HOOLI_FIRST, HOOLI_SECOND, STRICT_NUMBER, REGISTERED_NUMBER, DELAYED_NUMBER, RCS_NUMBER], subaccounts: [ACME_ACCOUNT, GLOBEX_ACCOUNT] });
  stack = await startTestStack({
    secretsKey: SECRETS_KEY,
    logger: log.logger,
    // The deployment's Twilio account (the worker sends through it); the numbers' carriers are built beside it.
    carrier: createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, from: SHARED, apiUrl: fake.url }),
    env: {
      MESSAGE_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: fake.accountSid,
      TWILIO_AUTH_TOKEN: fake.authToken,
      TWILIO_FROM: SHARED,
      TWILIO_API_URL: fake.url,
      // RCS's suggested replies go as a content made through the Content API.
      TWILIO_CONTENT_API_URL: fake.url,
      PUBLIC_BASE_URL: PUBLIC,
      ADMIN_TOKEN,
    },
  });
  origin = originOf(stack);
  metrics = httpMetrics();
  callbacks = await stack.startApi({ metrics, logger: log.logger });
  userX = stack.token('user-x');
  userY = stack.token('user-y');
});
afterAll(async () => {
  await stack.stop();
  await fake.stop();
});

test('the operator API registers a business\'s numbers with the operator credential only; a number is one business\'s at a time, the shared sender nobody\'s', async () => {
  expect((await admin('GET', `/businesses/${acme}/numbers`, undefined, null)).status).toBe(401);
  // A business token is no operator credential.
  expect((await admin('GET', `/businesses/${acme}/numbers`, undefined, userX)).status).toBe(401);

  const registered = await admin('PUT', `/businesses/${acme}/numbers/${encodeURIComponent(ACME_NUMBER)}`, {
    carrier: 'twilio',
    credentials: { account_sid: ACME_ACCOUNT.accountSid, auth_token: ACME_ACCOUNT.authToken },
  });
  expect(registered).toEqual({ status: 200, body: expect.objectContaining({ business: acme, number: ACME_NUMBER, carrier: 'twilio', own_account: true }) });
  expect(JSON.stringify(registered.body)).not.toContain(ACME_ACCOUNT.authToken);
  const globexRegistered = await admin('PUT', `/businesses/${globex}/numbers/${encodeURIComponent(GLOBEX_NUMBER)}`, {
    carrier: 'twilio',
    credentials: { account_sid: GLOBEX_ACCOUNT.accountSid, auth_token: GLOBEX_ACCOUNT.authToken },
  });
  expect(globexRegistered.status).toBe(200);

  const taken = await admin('PUT', `/businesses/${globex}/numbers/${encodeURIComponent(ACME_NUMBER)}`, { carrier: 'twilio' });
  expect(taken).toEqual({ status: 409, body: expect.objectContaining({ detail: `${ACME_NUMBER} belongs to another business: retire it there first` }) });
  const shared = await admin('PUT', `/businesses/${globex}/numbers/${encodeURIComponent(SHARED)}`, { carrier: 'twilio' });
  expect(shared).toEqual({ status: 409, body: expect.objectContaining({ detail: `${SHARED} is the deployment's shared sender: it belongs to no business` }) });
  const otherCarrier = await admin('PUT', `/businesses/${globex}/numbers/${encodeURIComponent(`${prefix}0009`)}`, { carrier: 'telnyx' });
  expect(otherCarrier).toEqual({ status: 400, body: expect.objectContaining({ detail: 'Invalid carrier: this deployment sends through twilio' }) });
  const badCredentials = await admin('PUT', `/businesses/${globex}/numbers/${encodeURIComponent(`${prefix}0009`)}`, { carrier: 'twilio', credentials: { account_sid: 'nope', auth_token: 'x' } });
  expect(badCredentials).toEqual({ status: 400, body: expect.objectContaining({ detail: 'Invalid credentials.account_sid: must be AC followed by 32 hexadecimal digits' }) });
  expect((await admin('GET', `/businesses/${globex}/numbers`)).body.numbers.map((n: any) => n.number)).toEqual([GLOBEX_NUMBER]);

  // Sealed at rest: the row holds no plaintext token, and no log line names it.
  const rows = await stack.prisma.businessNumber.findMany({ where: { business: { in: [acme, globex] } } });
  expect(rows).toHaveLength(2);
  for (const row of rows) expect(row.credentials).toMatch(/^v1:test:/);
  const stored = JSON.stringify(rows);
  expect(stored).not.toContain(ACME_ACCOUNT.authToken);
  expect(stored).not.toContain(GLOBEX_ACCOUNT.authToken);
  expect(log.lines.some((line) => line.event === 'admin.access' && line.caller === 'admin token holder')).toBe(true);

  // Neither ADMIN_TOKEN nor ADMIN_JWT_AUDIENCE: the routes are not served.
  const closed = await stack.startApi({ adminCredentials: undefined });
  expect((await fetch(`${originOf(closed)}/admin/businesses/${acme}/numbers`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(404);
});

test('each business sends from its own number with its own subaccount; replies and receipts land only in the business whose number they concern', async () => {
  const fromAcme = await send(acme, userX, PHONE, 'Your Acme order shipped');
  const fromGlobex = await send(globex, userY, PHONE, 'Your Globex invoice is ready');
  expect(fromAcme).toEqual(expect.objectContaining({ from: ACME_NUMBER, to: PHONE }));
  expect(fromGlobex).toEqual(expect.objectContaining({ from: GLOBEX_NUMBER, to: PHONE }));
  const acmeSend = fake.api.requests.find((r) => r.method === 'POST' && r.params.Body === 'Your Acme order shipped')!;
  expect(acmeSend.path).toBe(`/2010-04-01/Accounts/${ACME_ACCOUNT.accountSid}/Messages.json`);
  expect(acmeSend.headers.authorization).toBe(`Basic ${Buffer.from(`${ACME_ACCOUNT.accountSid}:${ACME_ACCOUNT.authToken}`).toString('base64')}`);
  expect(acmeSend.params.From).toBe(ACME_NUMBER);
  const globexSend = fake.api.requests.find((r) => r.method === 'POST' && r.params.Body === 'Your Globex invoice is ready')!;
  expect(globexSend.path).toBe(`/2010-04-01/Accounts/${GLOBEX_ACCOUNT.accountSid}/Messages.json`);

  // The phone answers each number: each reply reaches its number's business only.
  expect(await textFrom(PHONE, ACME_NUMBER, 'Thanks Acme', ACME_ACCOUNT)).toBe(200);
  expect(await textFrom(PHONE, GLOBEX_NUMBER, 'Paid, Globex', GLOBEX_ACCOUNT)).toBe(200);
  expect(await inboundTexts(acme, userX)).toEqual(['Thanks Acme']);
  expect(await inboundTexts(globex, userY)).toEqual(['Paid, Globex']);
  const acmeEvents = (await inBusiness(acme)('GET', '/events?type=message.received', { token: userX })).body.events;
  expect(acmeEvents.map((e: any) => [e.data.text_message, e.data.to])).toEqual([['Thanks Acme', ACME_NUMBER]]);
  // A text to acme's number signed with another account's token is refused.
  expect(await textFrom(PHONE, ACME_NUMBER, 'Forged', GLOBEX_ACCOUNT)).toBe(403);
  expect(await textFrom(PHONE, ACME_NUMBER, 'Forged', { accountSid: fake.accountSid, authToken: fake.authToken })).toBe(403);

  // A receipt for acme's message, but about globex's number (signed by globex's account), moves nothing.
  const acmeSid = fake.api.sentTo(PHONE).find((m) => m.from === ACME_NUMBER)!.sid;
  const receipt = (from: string, status: string) => ({ AccountSid: '', MessageSid: acmeSid, MessageStatus: status, From: from, To: PHONE });
  expect(await postTwilio(`/providers/twilio/status/${fromAcme._id}`, receipt(GLOBEX_NUMBER, 'undelivered'), GLOBEX_ACCOUNT.authToken)).toBe(200);
  expect((await inBusiness(acme)('GET', `/messages/${fromAcme._id}`, { token: userX })).body.status).toBe('sent');
  expect(await postTwilio(`/providers/twilio/status/${fromAcme._id}`, receipt(ACME_NUMBER, 'delivered'), fake.authToken)).toBe(403);
  expect(await postTwilio(`/providers/twilio/status/${fromAcme._id}`, receipt(ACME_NUMBER, 'delivered'), ACME_ACCOUNT.authToken)).toBe(200);
  expect((await inBusiness(acme)('GET', `/messages/${fromAcme._id}`, { token: userX })).body.status).toBe('delivered');
  expect((await inBusiness(globex)('GET', `/messages/${fromGlobex._id}`, { token: userY })).body.status).toBe('sent');

  // Nothing the carrier answered or the API received names a token in the logs.
  const logged = JSON.stringify(log.lines);
  expect(logged).not.toContain(ACME_ACCOUNT.authToken);
  expect(logged).not.toContain(GLOBEX_ACCOUNT.authToken);
});

const countOf = async (metric: string) => Number(/ (\d+)$/m.exec(await metrics.registry.getSingleMetricAsString(metric))?.[1] ?? 0);
const receivedTexts = async (business: string, token: string) =>
  (await inBusiness(business)('GET', '/events?type=message.received&limit=100', { token })).body.events.map((e: any) => e.data.text_message);

test('a reply to a business\'s number from a phone two of its users texted from it reaches neither: kept unmatched, counted, listed to the business and the operator', async () => {
  // Phones of this test only (the others below have their own).
  const phone = '+14155550191';
  const userW = stack.token('user-w');
  const fromX = await send(acme, userX, phone, 'Your statement is ready (X)');
  const fromW = await send(acme, userW, phone, 'Your statement is ready (W)');
  expect([fromX.from, fromW.from]).toEqual([ACME_NUMBER, ACME_NUMBER]);
  const ambiguousBefore = await countOf('crm_inbound_ambiguous_total');

  expect(await textFrom(phone, ACME_NUMBER, 'My account PIN is 4412', ACME_ACCOUNT)).toBe(200);
  expect(await countOf('crm_inbound_ambiguous_total')).toBe(ambiguousBefore + 1);
  for (const token of [userX, userW]) {
    expect(await inboundTexts(acme, token)).not.toContain('My account PIN is 4412');
    expect(await receivedTexts(acme, token)).not.toContain('My account PIN is 4412');
  }
  const listed = await inBusiness(acme)('GET', '/unmatched-inbound?limit=100', { token: userW });
  expect(listed.status).toBe(200);
  expect(listed.body.texts.filter((t: any) => t.from === phone)).toEqual([
    { _id: expect.any(String), provider: 'twilio', from: phone, to: ACME_NUMBER, text: 'My account PIN is 4412', ambiguous: true, received_at: expect.any(String), created_at: expect.any(String) },
  ]);
  // Another business does not see it; the operator does, with the business it went to.
  expect((await inBusiness(globex)('GET', '/unmatched-inbound?limit=100', { token: userY })).body.texts.filter((t: any) => t.from === phone)).toEqual([]);
  const operator = await admin('GET', '/unmatched-inbound?limit=100');
  expect(operator.body.texts.filter((t: any) => t.from === phone)).toEqual([expect.objectContaining({ business: acme, ambiguous: true, text: 'My account PIN is 4412' })]);
  expectProblem(await inBusiness(acme)('GET', '/unmatched-inbound?limit=0', { token: userX }), 400, 'Invalid limit: must be a whole number from 1 to 100');

  // A phone only one user of acme texted: its reply is that user's, as before, and nobody else's.
  const solo = '+14155550192';
  await send(acme, userX, solo, 'Your parcel is on its way');
  expect(await textFrom(solo, ACME_NUMBER, 'Thanks, X', ACME_ACCOUNT)).toBe(200);
  expect(await receivedTexts(acme, userX)).toContain('Thanks, X');
  expect(await receivedTexts(acme, userW)).not.toContain('Thanks, X');
  expect((await inBusiness(acme)('GET', '/unmatched-inbound?limit=100', { token: userX })).body.texts.filter((t: any) => t.from === solo)).toEqual([]);
  expect(await countOf('crm_inbound_ambiguous_total')).toBe(ambiguousBefore + 1);
});

test('a STOP to one of acme\'s numbers blocks every acme number to that phone and nothing of globex\'s; START to any acme number lifts it', async () => {
  const phone = '+14155550178';
  await send(acme, userX, phone, 'Acme sale');
  await send(globex, userY, phone, 'Globex sale');
  expect((await admin('PUT', `/businesses/${acme}/numbers/${encodeURIComponent(ACME_SECOND)}`, { carrier: 'twilio', credentials: { account_sid: ACME_ACCOUNT.accountSid, auth_token: ACME_ACCOUNT.authToken } })).status).toBe(200);

  expect(await textFrom(phone, ACME_NUMBER, 'STOP', ACME_ACCOUNT)).toBe(200);
  const refused = await inBusiness(acme)('POST', '/messages', { token: userX, body: { message_type: 'text', client_phone: phone, text_message: 'One more' } });
  expectProblem(refused, 409, 'Recipient has opted out of text messages');
  await send(globex, userY, phone, 'Globex is still free to text');
  const acmeRecords = (await inBusiness(acme)('GET', `/opt-outs?phone=${encodeURIComponent(phone)}`, { token: userX })).body.opt_outs;
  expect(acmeRecords).toEqual([expect.objectContaining({ phone, sender: ACME_NUMBER, status: 'opted_out' })]);
  expect((await inBusiness(globex)('GET', `/opt-outs?phone=${encodeURIComponent(phone)}`, { token: userY })).body.opt_outs).toEqual([]);

  // START to acme's other number lifts it; acme's phone stays on its number (sticky).
  expect(await textFrom(phone, ACME_SECOND, 'START', ACME_ACCOUNT)).toBe(200);
  const again = await send(acme, userX, phone, 'Welcome back');
  expect(again.from).toBe(ACME_NUMBER);
});

test.concurrent('new phones are spread over a business\'s numbers; a business without numbers gets a 409 when they are required, and nothing is stored', async () => {
  // Six new phones reach both numbers (a hash of the phone picks, so the same ones every run).
  const phones = Array.from({ length: 6 }, (_, k) => `+1415555${String(2000 + k)}`);
  const senders = new Set<string>();
  for (const phone of phones) {
    const res = await inBusiness(acme)('POST', '/messages', { token: userX, body: { message_type: 'text', client_phone: phone, text_message: 'Hello' } });
    expect(res.status).toBe(202);
    senders.add((await inBusiness(acme)('GET', `/messages/${res.body._id}`, { token: userX })).body.from);
  }
  expect([...senders].sort()).toEqual([ACME_NUMBER, ACME_SECOND]);

  const strict = await stack.startApi({ requireBusinessNumbers: true });
  const initech = uniqueName('initech');
  const res = await fetch(`${originOf(strict)}/ext/v2/${initech}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${userX}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message_type: 'text', client_phone: PHONE, text_message: 'Hi' }),
  });
  expect(res.status).toBe(409);
  expect(((await res.json()) as any).detail).toBe('No sending number for this business');
  const campaign = await fetch(`${originOf(strict)}/ext/v2/${initech}/messages/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${userX}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message_type: 'text', text_message: 'Hi', recipients: [{ client_phone: PHONE }] }),
  });
  expect(campaign.status).toBe(409);
  expect(((await campaign.json()) as any).detail).toBe('No sending number for this business');
  expect(await stack.prisma.message.count({ where: { business: initech } })).toBe(0);
  expect(await stack.prisma.messageBatch.count({ where: { business: initech } })).toBe(0);
  // A business with numbers sends as before.
  const ok = await fetch(`${originOf(strict)}/ext/v2/${acme}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${userX}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message_type: 'text', client_phone: PHONE, text_message: 'Hi again' }),
  });
  expect(ok.status).toBe(202);
});

test.concurrent('RCS through Twilio: a number registered with its Messaging Service and RCS sender sends RCS with FallbackFrom; the callbacks say which channel delivered; a tap reaches the business; STOP on RCS stops SMS', async () => {
  const business = uniqueName('bistro');
  const put = (body: Record<string, unknown>) => admin('PUT', `/businesses/${business}/numbers/${encodeURIComponent(RCS_NUMBER)}`, { carrier: 'twilio', ...body });
  const agent = `rcs:sim_${fake.messagingServiceSid}`;
  // A number without an RCS agent answers as it did before RCS.
  const plain = await put({ channels: ['sms', 'mms'] });
  expect(plain.status).toBe(200);
  expect(Object.keys(plain.body)).toEqual(['business', 'number', 'carrier', 'messaging_service_sid', 'own_account', 'channels', 'created_at', 'updated_at', 'registration']);
  expect(await put({ channels: ['sms', 'mms', 'rcs'] })).toEqual({ status: 400, body: expect.objectContaining({ detail: 'Invalid rcs_agent: a number that carries rcs needs its RCS agent as the carrier names it' }) });
  expect(await put({ channels: ['sms', 'mms', 'rcs'], rcs_agent: agent })).toEqual({
    status: 400,
    body: expect.objectContaining({ detail: 'Invalid messaging_service_sid: RCS on Twilio goes through the Messaging Service whose sender pool holds the RCS sender and this number' }),
  });
  const registered = await put({ channels: ['sms', 'mms', 'rcs'], rcs_agent: agent, messaging_service_sid: fake.messagingServiceSid });
  expect(registered).toEqual({ status: 200, body: expect.objectContaining({ number: RCS_NUMBER, channels: ['sms', 'mms', 'rcs'], rcs_agent: agent }) });
  // One agent names one number in the carrier's callbacks.
  const second = await admin('PUT', `/businesses/${business}/numbers/${encodeURIComponent(`${prefix}0008`)}`, { carrier: 'twilio', channels: ['sms', 'rcs'], rcs_agent: agent, messaging_service_sid: fake.messagingServiceSid });
  expect(second).toEqual({ status: 409, body: expect.objectContaining({ detail: `RCS agent ${agent} is the RCS sender of ${RCS_NUMBER}: retire it there first` }) });

  const token = stack.token('user-rcs');
  const rcs = async (phone: string) => {
    const res = await inBusiness(business)('POST', '/messages', { token, body: { message_type: 'text', client_phone: phone, channel: 'rcs', text_message: 'Table at 7?', suggestions: [{ text: 'Yes', postback_data: 'confirm' }] } });
    expect(res.status).toBe(202);
    await waitForStatus(inBusiness(business), token, res.body._id, 'sent');
    const sid = fake.api.sentTo(phone).at(-1)!.sid;
    return { id: res.body._id as string, sid };
  };
  const status = (message: { id: string; sid: string }, state: string, from: string) =>
    postTwilio(`/providers/twilio/status/${message.id}`, { AccountSid: fake.accountSid, MessageSid: message.sid, MessageStatus: state, From: from, To: '' }, fake.authToken);
  const view = async (id: string) => (await inBusiness(business)('GET', `/messages/${id}`, { token })).body;

  const capable = await rcs('+14155550166');
  const request = fake.api.requests.filter((r) => r.path.endsWith('/Messages.json') && r.method === 'POST' && r.params.To === '+14155550166').at(-1)!;
  expect(request.params).toMatchObject({ To: '+14155550166', MessagingServiceSid: fake.messagingServiceSid, FallbackFrom: RCS_NUMBER, ContentSid: expect.stringMatching(/^HX/) });
  expect(await status(capable, 'delivered', agent)).toBe(200);
  expect(await status(capable, 'read', agent)).toBe(200);
  expect(await view(capable.id)).toMatchObject({ status: 'read', channel: 'rcs', delivered_channel: 'rcs', from: RCS_NUMBER });

  const incapable = await rcs('+14155550169');
  expect(await status(incapable, 'delivered', RCS_NUMBER)).toBe(200);
  expect(await view(incapable.id)).toMatchObject({ status: 'delivered', channel: 'rcs', delivered_channel: 'sms' });

  const sid = `SM${hex()}`;
  const tap = { AccountSid: fake.accountSid, MessageSid: sid, From: 'rcs:+14155550166', To: agent, Body: 'Yes', ButtonText: 'Yes', ButtonPayload: 'confirm', NumMedia: '0', SmsStatus: 'received' };
  expect(await postTwilio('/providers/twilio/inbound', tap, fake.authToken)).toBe(200);
  const [received] = (await inBusiness(business)('GET', '/messages?direction=inbound', { token })).body.messages;
  expect(received).toMatchObject({ channel: 'rcs', text_message: 'Yes', to: RCS_NUMBER, suggestions: [{ text: 'Yes', postback_data: 'confirm' }] });

  const stop = { ...tap, MessageSid: `SM${hex()}`, Body: 'STOP', ButtonText: '', ButtonPayload: '' };
  expect(await postTwilio('/providers/twilio/inbound', stop, fake.authToken)).toBe(200);
  for (const channel of ['rcs', 'sms']) {
    const refused = await inBusiness(business)('POST', '/messages', { token, body: { message_type: 'text', client_phone: '+14155550166', channel, text_message: 'Still there?' } });
    expectProblem(refused, 409, 'Recipient has opted out of text messages');
  }
});

test.concurrent('an operator JWT (its own audience) opens the operator API; a business token does not', async () => {
  const withJwt = await stack.startApi({ logger: log.logger, adminCredentials: { jwt: { secret: stack.secret, audience: 'crm-operators' } } });
  const list = (token: string) => fetch(`${originOf(withJwt)}/admin/businesses/${acme}/numbers`, { headers: { authorization: `Bearer ${token}` } });
  expect((await list(stack.token('ops-1', { aud: 'crm-operators' }))).status).toBe(200);
  expect((await list(userX)).status).toBe(401);
  expect((await list(stack.token('ops-1', { aud: 'crm-api' }))).status).toBe(401);
  expect(log.lines.some((line) => line.event === 'admin.access' && line.caller === 'ops-1' && line.credential === 'jwt')).toBe(true);
});

test('MESSAGE_SEND_RATE_PER_SECOND paces each number on its own: a campaign spread over two numbers goes out at twice one number\'s rate', async () => {
  // Another API and worker of the same deployment: the same SECRETS_KEY opens the numbers' credentials.
  const paced = await startTestStack({
    secretsKey: SECRETS_KEY,
    business: acme,
    carrier: createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, from: SHARED, apiUrl: fake.url }),
    env: { MESSAGE_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: fake.accountSid, TWILIO_AUTH_TOKEN: fake.authToken, TWILIO_FROM: SHARED, TWILIO_API_URL: fake.url, PUBLIC_BASE_URL: PUBLIC, MESSAGE_SEND_RATE_PER_SECOND: '5' },
  });
  try {
    const user = paced.token('user-x');
    // Twelve, six a number (a hash of the phone picks): one more a number than its first second allows.
    const phones = Array.from({ length: 12 }, (_, k) => `+1415555${String(3000 + k)}`);
    const postedAt = Date.now();
    const res = await paced.api('POST', '/messages/batch', { token: user, body: { message_type: 'text', text_message: 'Paced per number', recipients: phones.map((client_phone) => ({ client_phone })) } });
    expect(res.status).toBe(202);
    await eventually(async () => (await paced.api('GET', `/messages/batch/${res.body.batch_id}`, { token: user })).body.finished_at, 60_000);
    const sends = fake.api.requests.filter((r) => r.method === 'POST' && r.params.Body === 'Paced per number').sort((a, b) => a.at - b.at);
    expect(sends).toHaveLength(12);
    const bySender = new Map<string, number[]>();
    for (const send of sends) bySender.set(send.params.From, [...(bySender.get(send.params.From) ?? []), send.at]);
    expect([...bySender.keys()].sort()).toEqual([ACME_NUMBER, ACME_SECOND]);
    // Each number keeps 5 a second, as the carrier counts them: per whole second…
    for (const times of bySender.values()) expect(secondsAheadOfRate(times, postedAt, 5)).toEqual([]);
    // …while the two together go faster than one number could (6 hand-overs of one number span 1,000 ms; of two, 400 ms).
    const all = sends.map((send) => send.at);
    expect(Math.min(...all.slice(5).map((t, i) => t - all[i]))).toBeLessThan(700);
  } finally {
    await paced.stop();
  }
}, 120_000);

test.concurrent('a retired number is no longer the business\'s to send from, yet the replies to its messages still reach the business', async () => {
  const phone = '+14155550179';
  const sent = await send(globex, userY, phone, 'Before retiring');
  expect(sent.from).toBe(GLOBEX_NUMBER);
  expect((await admin('DELETE', `/businesses/${globex}/numbers/${encodeURIComponent(GLOBEX_NUMBER)}`)).status).toBe(204);
  expect((await admin('DELETE', `/businesses/${globex}/numbers/${encodeURIComponent(GLOBEX_NUMBER)}`)).status).toBe(404);
  expect((await admin('GET', `/businesses/${globex}/numbers`)).body.numbers).toEqual([]);
  expect(await textFrom(phone, GLOBEX_NUMBER, 'Still there?', GLOBEX_ACCOUNT)).toBe(200);
  await eventually(async () => (await inboundTexts(globex, userY)).includes('Still there?'));
  // Without numbers, globex sends from the shared sender again.
  expect((await send(globex, userY, phone, 'From the shared sender')).from).toBe(SHARED);
});

test.concurrent('a message scheduled on a number retired since goes out from another of the business\'s numbers, else from the shared sender', async () => {
  const hooli = uniqueName('hooli');
  const phone = '+14155550180';
  for (const number of [HOOLI_FIRST, HOOLI_SECOND]) expect((await admin('PUT', `/businesses/${hooli}/numbers/${encodeURIComponent(number)}`, { carrier: 'twilio' })).status).toBe(200);
  const schedule = async (text: string) => {
    // Due 2 s on: the number's retirement, two requests on, lands before it (else it is sent from it, and the test fails).
    const res = await inBusiness(hooli)('POST', '/messages', { token: userX, body: { message_type: 'text', client_phone: phone, text_message: text, delay: '2s' } });
    expect(res.status).toBe(202);
    return (await inBusiness(hooli)('GET', `/messages/${res.body._id}`, { token: userX })).body;
  };
  const first = await schedule('Your table is ready at 8');
  const retired = first.from;
  expect([HOOLI_FIRST, HOOLI_SECOND]).toContain(retired);
  const remaining = retired === HOOLI_FIRST ? HOOLI_SECOND : HOOLI_FIRST;
  expect((await admin('DELETE', `/businesses/${hooli}/numbers/${encodeURIComponent(retired)}`)).status).toBe(204);
  const sent = await waitForStatus(inBusiness(hooli), userX, first._id, 'sent');
  expect(sent.from).toBe(remaining);
  expect(fake.api.sentTo(phone).filter((m) => m.body === 'Your table is ready at 8').map((m) => m.from)).toEqual([remaining]);
  expect((await stack.prisma.message.findUnique({ where: { id: first._id } }))!.sender).toBe(remaining);

  // Its last number retired too: REQUIRE_BUSINESS_NUMBERS is off here, so the shared sender.
  const second = await schedule('See you tomorrow');
  expect(second.from).toBe(remaining);
  expect((await admin('DELETE', `/businesses/${hooli}/numbers/${encodeURIComponent(remaining)}`)).status).toBe(204);
  expect((await waitForStatus(inBusiness(hooli), userX, second._id, 'sent')).from).toBe(SHARED);
});

test.concurrent('with REQUIRE_BUSINESS_NUMBERS, a message scheduled on the business\'s last number, retired since, fails when due with a clear error', async () => {
  const strict = await startTestStack({
    secretsKey: SECRETS_KEY,
    carrier: createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, from: SHARED, apiUrl: fake.url }),
    env: { MESSAGE_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: fake.accountSid, TWILIO_AUTH_TOKEN: fake.authToken, TWILIO_FROM: SHARED, TWILIO_API_URL: fake.url, PUBLIC_BASE_URL: PUBLIC, REQUIRE_BUSINESS_NUMBERS: 'true' },
  });
  try {
    const user = strict.token('user-x');
    const phone = '+14155550181';
    expect((await admin('PUT', `/businesses/${strict.business}/numbers/${encodeURIComponent(STRICT_NUMBER)}`, { carrier: 'twilio' })).status).toBe(200);
    // Due 2 s on: the retirement, two requests on, lands before it (else it is sent, and the test fails).
    const res = await strict.api('POST', '/messages', { token: user, body: { message_type: 'text', client_phone: phone, text_message: 'Due later', delay: '2s' } });
    expect(res.status).toBe(202);
    expect((await strict.api('GET', `/messages/${res.body._id}`, { token: user })).body.from).toBe(STRICT_NUMBER);
    expect((await admin('DELETE', `/businesses/${strict.business}/numbers/${encodeURIComponent(STRICT_NUMBER)}`)).status).toBe(204);
    const failed = await waitForStatus(strict.api, user, res.body._id, 'failed');
    expect(failed.error).toMatch(/^Its sending number was retired from the business, which has no other number to send from/);
    expect(failed.from).toBe(STRICT_NUMBER);
    expect(fake.api.sentTo(phone)).toEqual([]);
  } finally {
    await strict.stop();
  }
}, 60_000);

test.concurrent('the operator credential and REQUIRE_BUSINESS_NUMBERS are checked at boot; production requires business numbers by default and has no operator credential of its own', () => {
  expect(() => loadConfig({ ADMIN_TOKEN: 'short' })).toThrow('ADMIN_TOKEN must be at least 32 characters');
  expect(() => loadConfig({ JWT_SECRET: 'x'.repeat(32), ADMIN_JWT_AUDIENCE: 'ops' })).toThrow('ADMIN_JWT_AUDIENCE needs JWT_AUDIENCE set to another audience');
  expect(() => loadConfig({ JWT_SECRET: 'x'.repeat(32), JWT_AUDIENCE: 'api', ADMIN_JWT_AUDIENCE: 'api' })).toThrow('ADMIN_JWT_AUDIENCE needs JWT_AUDIENCE set to another audience');
  expect(adminCredentialsOf(loadConfig({}))).toBeUndefined();
  expect(adminCredentialsOf(loadConfig({ NODE_ENV: 'production' }))).toBeUndefined();
  expect(requireBusinessNumbersOf(loadConfig({ NODE_ENV: 'production' }))).toBe(true);
  expect(requireBusinessNumbersOf(loadConfig({ NODE_ENV: 'production', REQUIRE_BUSINESS_NUMBERS: 'false' }))).toBe(false);
  expect(requireBusinessNumbersOf(loadConfig({}))).toBe(false);
  expect(loadConfig({}).SHARED_SENDER_MATCH_DAYS).toBe(30);
});

const adminAt = admin;

test.concurrent('with REQUIRE_A2P_REGISTRATION, a number\'s registration is read from Twilio and shown; a send from a number not in an approved 10DLC campaign is a 409, a campaign\'s recipients are refused alike, a delayed one fails when due, and the change is an event (issue 51)', async () => {
  const enforced = await startTestStack({
    secretsKey: SECRETS_KEY,
    carrier: createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, from: SHARED, apiUrl: fake.url }),
    env: { MESSAGE_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: fake.accountSid, TWILIO_AUTH_TOKEN: fake.authToken, TWILIO_FROM: SHARED, TWILIO_API_URL: fake.url, PUBLIC_BASE_URL: PUBLIC, REQUIRE_A2P_REGISTRATION: 'true', ADMIN_TOKEN },
  });
  // The operator API of this stack: its services read registrations where they are enforced.
  const admin = (method: string, path: string, body?: unknown) => adminAt(method, path, body, ADMIN_TOKEN, originOf(enforced));
  try {
    const user = enforced.token('user-x');
    const business = enforced.business;
    const phone = '+14155550182';
    const path = (number: string) => `/businesses/${business}/numbers/${encodeURIComponent(number)}`;
    // A user of the business (a client of theirs): each gets number.registration_changed.
    expect((await enforced.api('POST', '/clients', { token: user, body: { _id: 'reg-client', phone } })).status).toBe(201);

    // Registered: read at once, approved (the fake's numbers are, until set otherwise); its answer adds `registration` only.
    const put = await admin('PUT', path(REGISTERED_NUMBER), { carrier: 'twilio' });
    expect(put.status).toBe(200);
    expect(Object.keys(put.body)).toEqual(['business', 'number', 'carrier', 'messaging_service_sid', 'own_account', 'channels', 'created_at', 'updated_at', 'registration']);
    expect(put.body.registration).toMatchObject({ kind: '10dlc', brand: { status: 'approved' }, campaign: { status: 'approved', use_case: 'CUSTOMER_CARE' }, toll_free: null, can_send: true, reason: null });
    const sent = await enforced.api('POST', '/messages', { token: user, body: { message_type: 'text', client_phone: phone, text_message: 'Registered and sending' } });
    expect(sent.status).toBe(202);
    expect((await waitForStatus(enforced.api, user, sent.body._id, 'sent')).from).toBe(REGISTERED_NUMBER);

    // The number leaves its campaign at Twilio, whose receipt fails the message with 30034: final, in our words, and the number is read again at once.
    fake.api.registrations.set(REGISTERED_NUMBER, 'unregistered');
    const statusPath = `/providers/twilio/status/${sent.body._id}`;
    const failedReceipt = { AccountSid: fake.accountSid, MessageSid: fake.api.sentTo(phone).at(-1)!.sid, MessageStatus: 'failed', ErrorCode: '30034', From: REGISTERED_NUMBER, To: phone };
    const posted = await fetch(`${originOf(enforced)}${statusPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(fake.authToken, `${PUBLIC}${statusPath}`, failedReceipt) },
      body: new URLSearchParams(failedReceipt).toString(),
    });
    expect(posted.status).toBe(200);
    expect(await enforced.api('GET', `/messages/${sent.body._id}`, { token: user }).then((r) => r.body)).toMatchObject({
      status: 'failed',
      error_code: '30034',
      error: 'The carrier reported the message failed: The sender is not in an approved US A2P 10DLC campaign (unregistered number) (error 30034)',
    });
    expect((await admin('GET', `/businesses/${business}/numbers`)).body.numbers[0].registration).toMatchObject({ campaign: null, can_send: false, reason: `Sender ${REGISTERED_NUMBER} is not in an approved 10DLC campaign (unregistered)` });

    // Its campaign is pending at Twilio now; the operator reads it.
    fake.api.registrations.set(REGISTERED_NUMBER, 'pending');
    const reason = `Sender ${REGISTERED_NUMBER} is not in an approved 10DLC campaign (pending)`;
    const refreshed = await admin('POST', `${path(REGISTERED_NUMBER)}/registration/refresh`);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.registration).toMatchObject({ campaign: { status: 'pending' }, can_send: false, reason });
    expect((await admin('GET', `/businesses/${business}/numbers`)).body.numbers[0].registration).toMatchObject({ can_send: false, reason });
    expect((await admin('GET', '/numbers?can_send=false')).body.numbers.map((n: any) => n.number)).toContain(REGISTERED_NUMBER);
    expect((await admin('GET', '/numbers?can_send=maybe')).status).toBe(400);
    const events = await enforced.api('GET', '/events?type=number.registration_changed', { token: user });
    // Its first reading (at the PUT), then each change.
    expect(events.body.events.map((e: any) => e.data)).toEqual([
      expect.objectContaining({ number: REGISTERED_NUMBER, registration: expect.objectContaining({ can_send: true }), previous: null, reason: 'carrier' }),
      expect.objectContaining({ number: REGISTERED_NUMBER, registration: expect.objectContaining({ campaign: null, can_send: false }), previous: expect.objectContaining({ can_send: true }), reason: 'carrier' }),
      expect.objectContaining({ number: REGISTERED_NUMBER, registration: expect.objectContaining({ can_send: false, reason }), previous: expect.objectContaining({ campaign: null }), reason: 'carrier' }),
    ]);

    // Refused at accept, with the reason; nothing stored, nothing sent.
    const refused = await enforced.api('POST', '/messages', { token: user, body: { message_type: 'text', client_phone: phone, text_message: 'Not while pending' } });
    expectProblem(refused, 409, reason);
    const campaign = await enforced.api('POST', '/messages/batch', { token: user, body: { message_type: 'text', text_message: 'Nor a campaign', recipients: [{ client_phone: phone }, { client_phone: '+14155550183' }] } });
    expect(campaign.status).toBe(400);
    expect(campaign.body.results.map((r: any) => r.error)).toEqual([expect.objectContaining({ status: 409, detail: reason }), expect.objectContaining({ status: 409, detail: reason })]);
    expect(fake.api.sentTo(phone).map((m) => m.body)).toEqual(['Registered and sending']);

    // A delayed message whose number loses its approval before it is due ends failed with the reason, never handed over.
    expect((await admin('PUT', path(DELAYED_NUMBER), { carrier: 'twilio' })).status).toBe(200);
    expect((await admin('DELETE', path(REGISTERED_NUMBER))).status).toBe(204);
    // Due 2 s on: the refresh, one request on, lands before it (else it is sent, and the test fails).
    const later = await enforced.api('POST', '/messages', { token: user, body: { message_type: 'text', client_phone: '+14155550184', text_message: 'Due in two seconds', delay: '2s' } });
    expect(later.status).toBe(202);
    fake.api.registrations.set(DELAYED_NUMBER, 'rejected');
    expect((await admin('POST', `${path(DELAYED_NUMBER)}/registration/refresh`)).body.registration.can_send).toBe(false);
    const failed = await waitForStatus(enforced.api, user, later.body._id, 'failed');
    expect(failed).toMatchObject({ from: DELAYED_NUMBER, error: `Sender ${DELAYED_NUMBER} is not in an approved 10DLC campaign (rejected)`, error_code: 'a2p-registration' });
    expect(fake.api.sentTo('+14155550184')).toEqual([]);
  } finally {
    fake.api.registrations.set(REGISTERED_NUMBER, 'approved');
    fake.api.registrations.set(DELAYED_NUMBER, 'approved');
    await enforced.stop();
  }
}, 60_000);
