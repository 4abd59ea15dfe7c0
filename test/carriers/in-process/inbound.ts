import { httpMetrics, type HttpMetrics } from '../../../src/api';
import { CarrierRejected } from '../../../src/carriers';
import { recordProviderAccepted } from '../../../src/db/messages';
import { OPT_IN_CONFIRMATION, OPT_OUT_CONFIRMATION } from '../../../src/use-cases/carriers/keywords';
import { eventually, expectProblem, memoryLogger, waitForStatus as waitForMessageStatus } from '../../support/helpers';
import { startTestStack, uniqueName, type TestApi, type TestStack } from '../../support/stack';
import { createTestCarrier, TEST_PUBLIC_BASE_URL, type TestInbound } from '../../support/test-carrier';

/**
 * Texts clients send back, through the public inbound route: matched to whoever last texted the number
 * from our sender, with the client's assignments in force; kept when unmatched; keywords honoured.
 */
const HELP_TEXT = 'Acme Support: call 555-0100. Reply STOP to opt out.';
const carrier = createTestCarrier();
const log = memoryLogger();
let stack: TestStack;
let callbacks: TestApi;
let metrics: HttpMetrics;
let alice: string;
let bob: string;

const originOf = (api: TestApi) => api.baseUrl.replace(/\/ext\/v2\/.*$/, '');
const inboundPath = `/providers/${carrier.name}/inbound`;
const text = (from: string, body: string, ref = uniqueName('in')) => carrier.post(originOf(callbacks), inboundPath, { kind: 'inbound', ref, from, to: '+15550001000', text: body });

beforeAll(async () => {
  stack = await startTestStack({ carrier, env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL, SMS_HELP_TEXT: HELP_TEXT } });
  metrics = httpMetrics();
  callbacks = await stack.startApi({ metrics, logger: log.logger });
  alice = stack.token('alice');
  bob = stack.token('bob');
});
afterAll(() => stack.stop());

let phones = 0;
/**
 * A number of its own for each test: matching and opt-outs are per number. The file's own area code (312, no
 * other file's) keeps its counts by phone free of other files' messages in the shared database.
 */
const newPhone = () => `+1312555${String(1000 + ++phones).padStart(4, '0')}`;

async function sendTo(token: string, body: Record<string, unknown>): Promise<any> {
  const res = await stack.api('POST', '/messages', { token, body: { message_type: 'text', text_message: 'Your appointment is tomorrow at 3pm', ...body } });
  expect(res.status).toBe(202);
  return waitForMessageStatus(stack.api, token, res.body._id, 'sent');
}

async function receivedEvents(token: string, client?: string): Promise<any[]> {
  const res = await stack.api('GET', `/events?type=message.received&limit=100${client ? `&client=${client}` : ''}`, { token });
  return res.body.events;
}

test('a reply is stored against the latest message to that number, and its event names the client\'s assignments in force', async () => {
  const phone = newPhone();
  for (const _id of ['ag-manual', 'ag-rot1', 'ag-rot2', 'ag-ended']) await stack.api('POST', '/agents', { token: alice, body: { _id } });
  expect((await stack.api('POST', '/clients', { token: alice, body: { _id: 'c-reply', name: 'Ada', phone } })).status).toBe(201);
  const assigned = await stack.api('POST', '/clients/c-reply/assign-agents', { token: alice, body: { agents: [{ agent: 'ag-manual', dt_until: '2099-01-01' }, { agent: 'ag-ended', dt_until: '2099-01-01' }] } });
  expect(assigned.status).toBe(200);
  expect((await stack.api('DELETE', '/clients/c-reply/agents/ag-ended', { token: alice })).status).toBe(200);
  expect((await stack.api('PUT', '/clients/c-reply/rotation', { token: alice, body: { agents: ['ag-rot1', 'ag-rot2'], period: '1h' } })).status).toBe(201);
  await eventually(async () => {
    const res = await stack.api('GET', '/clients/c-reply/agents', { token: alice });
    return res.body.assignments.some((a: any) => a.agent === 'ag-rot1');
  });
  const sent = await sendTo(alice, { client: 'c-reply' });

  const res = await text(phone, 'Yes, see you at 3! 👍', 'in-reply-1');
  expect(res.status).toBe(200);
  const [event] = await receivedEvents(alice, 'c-reply');
  expect(event.data).toEqual(
    expect.objectContaining({
      direction: 'inbound',
      status: 'received',
      client: 'c-reply',
      client_phone: phone,
      client_name: 'Ada',
      text_message: 'Yes, see you at 3! 👍',
      workflow_id: null,
      provider: carrier.name,
      provider_ref: 'in-reply-1',
      reason: 'carrier',
      received_at: expect.any(String),
    }),
  );
  expect(event.data.assignments).toEqual([
    { agent: 'ag-manual', dt_until: '2099-01-01T00:00:00.000Z', rotation: false, current_period: false },
    { agent: 'ag-rot1', dt_until: expect.any(String), rotation: true, current_period: true },
  ]);

  // The conversation, newest first: the reply, then what was sent.
  const conversation = await stack.api('GET', '/clients/c-reply/messages', { token: alice });
  expect(conversation.body.messages.map((m: any) => [m.direction, m._id])).toEqual([['inbound', event.data._id], ['outbound', sent._id]]);
  const inbound = await stack.api('GET', '/messages?direction=inbound&client=c-reply', { token: alice });
  expect(inbound.body.messages.map((m: any) => m._id)).toEqual([event.data._id]);
  const outbound = await stack.api('GET', '/messages?direction=outbound&client=c-reply', { token: alice });
  expect(outbound.body.messages.map((m: any) => m._id)).toEqual([sent._id]);
  expect((await stack.api('GET', `/messages/${event.data._id}`, { token: alice })).body).toEqual(expect.objectContaining({ status: 'received' }));
  // Someone else's client is not found, nor are its messages.
  expectProblem(await stack.api('GET', '/clients/c-reply/messages', { token: bob }), 404, 'Client not found');
});

test('the carrier repeating its callback stores the text once', async () => {
  const phone = newPhone();
  await sendTo(alice, { client_phone: phone });
  for (let i = 0; i < 3; i++) expect((await text(phone, 'Got it', 'in-repeat-1')).status).toBe(200);
  // And many times at once.
  expect((await Promise.all(Array.from({ length: 6 }, () => text(phone, 'STOP', 'in-repeat-2')))).map((r) => r.status)).toEqual(Array(6).fill(200));
  expect(await stack.prisma.message.count({ where: { inboundKey: `${carrier.name}:in-repeat-2` } })).toBe(1);
  expect(carrier.replies.filter((r) => r.to === phone)).toHaveLength(1);
  const rows = await stack.prisma.message.findMany({ where: { inboundKey: `${carrier.name}:in-repeat-1` } });
  expect(rows).toHaveLength(1);
  expect((await receivedEvents(alice)).filter((e) => e.data.provider_ref === 'in-repeat-1')).toHaveLength(1);
});

test('on the shared sender, a reply from a phone two users texted lately reaches neither: kept unmatched and counted as ambiguous', async () => {
  const phone = newPhone();
  // Bob first, then Alice twice: her two texts are the latest, Bob's still makes it ambiguous.
  await sendTo(bob, { client_phone: phone });
  await sendTo(alice, { client_phone: phone });
  await sendTo(alice, { client_phone: phone });
  expect((await text(phone, 'Who is this?', 'in-latest-1')).status).toBe(200);
  expect((await receivedEvents(alice)).filter((e) => e.data.provider_ref === 'in-latest-1')).toEqual([]);
  expect((await receivedEvents(bob)).filter((e) => e.data.provider_ref === 'in-latest-1')).toEqual([]);
  expect(await stack.prisma.message.count({ where: { inboundKey: `${carrier.name}:in-latest-1` } })).toBe(0);
  expect(await stack.prisma.unmatchedInbound.count({ where: { inboundKey: `${carrier.name}:in-latest-1` } })).toBe(1);
  expect(await metrics.registry.getSingleMetricAsString('crm_inbound_ambiguous_total')).toMatch(/^crm_inbound_ambiguous_total [1-9]/m);
});

test('on the shared sender, a user\'s text older than SHARED_SENDER_MATCH_DAYS does not make a reply ambiguous', async () => {
  const phone = newPhone();
  const old = await sendTo(alice, { client_phone: phone });
  await stack.prisma.message.update({ where: { id: old._id }, data: { createdAt: new Date(Date.now() - 31 * 24 * 60 * 60 * 1000) } });
  await sendTo(bob, { client_phone: phone });
  expect((await text(phone, 'Yes please', 'in-window-1')).status).toBe(200);
  expect((await receivedEvents(alice)).filter((e) => e.data.provider_ref === 'in-window-1')).toEqual([]);
  expect((await receivedEvents(bob)).filter((e) => e.data.provider_ref === 'in-window-1')).toHaveLength(1);
});

/** The same API under another business name: another tenant texting the same numbers from our sender. */
const inBusiness = (business: string) => (method: string, path: string, options: { token: string; body?: unknown }) =>
  stack.api(method, `//ext/v2/${business}${path}`, options);

test('a text the carrier refused or could not deliver never claims the client\'s replies: they and STOP go to the business that reached the phone', async () => {
  const phone = newPhone();
  expect((await stack.api('POST', '/clients', { token: alice, body: { _id: 'c-reached', name: 'Ada', phone } })).status).toBe(201);
  await sendTo(alice, { client: 'c-reached' });

  const rival = inBusiness(uniqueName('rival'));
  const post = async (text_message: string) => {
    const res = await rival('POST', '/messages', { token: bob, body: { message_type: 'text', client_phone: phone, text_message } });
    expect(res.status).toBe(202);
    return res.body._id as string;
  };
  // Twilio refuses a body over 1,600 characters (21617); we accept up to 4,096.
  carrier.onSend = async (send) => {
    if (send.text.length > 1600) throw new CarrierRejected('21617', 'The message body exceeds the 1600 character limit', false);
    return { providerRef: `ref-${send.id}` };
  };
  try {
    const refused = await post('x'.repeat(1700));
    expect(await waitForMessageStatus(rival, bob, refused, 'failed')).toEqual(expect.objectContaining({ error_code: '21617' }));
    // One the carrier took, then reported it could not hand to the phone.
    const undelivered = await post('Hello from a rival');
    await waitForMessageStatus(rival, bob, undelivered, 'sent');
    const receipt = await carrier.post(originOf(callbacks), `/providers/${carrier.name}/status/${undelivered}`, { kind: 'status', ref: `ref-${undelivered}`, status: 'undelivered', error_code: '30003' });
    expect(receipt.status).toBe(200);
    await waitForMessageStatus(rival, bob, undelivered, 'undelivered');
  } finally {
    carrier.onSend = async (send) => ({ providerRef: `ref-${send.id}` });
  }

  expect((await text(phone, 'Which order?', 'in-reached-1')).status).toBe(200);
  expect((await text(phone, 'STOP', 'in-reached-2')).status).toBe(200);
  const replies = (await receivedEvents(alice, 'c-reached')).map((e) => e.data.provider_ref);
  expect(replies.sort()).toEqual(['in-reached-1', 'in-reached-2']);
  expect((await rival('GET', '/messages?direction=inbound', { token: bob })).body.messages).toEqual([]);
  expect((await rival('GET', '/events?type=message.received', { token: bob })).body.events).toEqual([]);
  expect((await stack.api('GET', `/opt-outs?phone=${encodeURIComponent(phone)}`, { token: alice })).body.opt_outs).toEqual([expect.objectContaining({ phone, status: 'opted_out' })]);
});

test('a message still on its way claims replies only once the carrier has accepted it (then, two businesses having texted the phone, a reply reaches neither)', async () => {
  const phone = newPhone();
  await sendTo(alice, { client_phone: phone });
  const rival = inBusiness(uniqueName('rival'));
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  carrier.onSend = async (send) => {
    if (send.to === phone) await held;
    return { providerRef: `ref-${send.id}` };
  };
  try {
    const res = await rival('POST', '/messages', { token: bob, body: { message_type: 'text', client_phone: phone, text_message: 'On its way' } });
    expect(res.status).toBe(202);
    await eventually(async () => carrier.sends.some((s) => s.id === res.body._id));
    expect((await text(phone, 'Before', 'in-on-its-way-1')).status).toBe(200);
    // The carrier's 2xx, recorded by the delivering attempt before the run marks the message sent.
    await recordProviderAccepted(stack.prisma, { messageId: res.body._id, providerRef: `ref-${res.body._id}` });
    expect((await text(phone, 'After', 'in-on-its-way-2')).status).toBe(200);
    release();
    await waitForMessageStatus(rival, bob, res.body._id, 'sent');
  } finally {
    release();
    carrier.onSend = async (send) => ({ providerRef: `ref-${send.id}` });
  }
  expect((await receivedEvents(alice)).filter((e) => e.data.client_phone === phone).map((e) => e.data.text_message)).toEqual(['Before']);
  // Once accepted, the rival's message makes two businesses that texted the phone from the shared sender: the reply reaches neither.
  expect((await rival('GET', '/messages?direction=inbound', { token: bob })).body.messages).toEqual([]);
  expect(await stack.prisma.unmatchedInbound.count({ where: { inboundKey: `${carrier.name}:in-on-its-way-2` } })).toBe(1);
});

test('a text from a number we never texted is kept apart and counted, not dropped; no event', async () => {
  const phone = newPhone();
  expect((await text(phone, 'Hello?', 'in-unmatched-1')).status).toBe(200);
  expect((await text(phone, 'Hello?', 'in-unmatched-1')).status).toBe(200);
  const kept = await stack.prisma.unmatchedInbound.findMany({ where: { inboundKey: `${carrier.name}:in-unmatched-1` } });
  expect(kept).toEqual([expect.objectContaining({ phone, text: 'Hello?', sender: '+15550001000', provider: carrier.name })]);
  expect(await stack.prisma.message.count({ where: { phone } })).toBe(0);
  expect(await metrics.registry.getSingleMetricAsString('crm_inbound_unmatched_total')).toMatch(/^crm_inbound_unmatched_total 1$/m);
});

test('STOP (any case, trimmed) opts the number out: confirmed once, shown to the owner, and the next send is a 409 that stores nothing', async () => {
  const phone = newPhone();
  await sendTo(alice, { client_phone: phone });
  expect((await text(phone, '  sToP \n', 'in-stop-1')).status).toBe(200);
  expect((await text(phone, '  sToP \n', 'in-stop-1')).status).toBe(200);
  expect(carrier.replies.filter((r) => r.to === phone)).toEqual([{ to: phone, text: OPT_OUT_CONFIRMATION }]);
  expect((await receivedEvents(alice)).filter((e) => e.data.provider_ref === 'in-stop-1').map((e) => e.data.text_message)).toEqual(['  sToP \n']);

  const before = await stack.prisma.message.count({ where: { phone } });
  const refused = await stack.api('POST', '/messages', { token: alice, body: { message_type: 'text', client_phone: phone, text_message: 'One more thing' } });
  expectProblem(refused, 409, 'Recipient has opted out of text messages');
  // Another business sending from the same number is refused too: the record is per sender and number.
  const otherBusiness = await stack.api('POST', `//ext/v2/${uniqueName('biz')}/messages`, { token: bob, body: { message_type: 'text', client_phone: phone, text_message: 'Hi' } });
  expectProblem(otherBusiness, 409, 'Recipient has opted out of text messages');
  expect(await stack.prisma.message.count({ where: { phone } })).toBe(before);

  const records = await stack.api('GET', `/opt-outs?phone=${encodeURIComponent(phone)}`, { token: alice });
  expect(records.body.opt_outs).toEqual([expect.objectContaining({ phone, sender: carrier.sender, status: 'opted_out', source: 'keyword', detail: 'STOP', opted_in_at: null })]);
  // A user who never dealt with the number does not learn that it opted out.
  expect((await stack.api('GET', `/opt-outs?phone=${encodeURIComponent(phone)}`, { token: stack.token('carol') })).body.opt_outs).toEqual([]);

  // Only the recipient opts back in.
  expect((await text(phone, 'Start', 'in-start-1')).status).toBe(200);
  expect(carrier.replies.filter((r) => r.to === phone).map((r) => r.text)).toEqual([OPT_OUT_CONFIRMATION, OPT_IN_CONFIRMATION]);
  const after = await stack.api('GET', `/opt-outs?phone=${phone.replace('+', '%2B')}`, { token: alice });
  expect(after.body.opt_outs).toEqual([expect.objectContaining({ status: 'opted_in', detail: 'START', opted_in_at: expect.any(String) })]);
  await sendTo(alice, { client_phone: phone });
});

test.each(['UNSUBSCRIBE', 'stopall', 'Cancel', 'END', 'quit', 'REVOKE', 'optout'])('%s opts out as STOP does', async (word) => {
  const phone = newPhone();
  await sendTo(alice, { client_phone: phone });
  expect((await text(phone, word)).status).toBe(200);
  expectProblem(await stack.api('POST', '/messages', { token: alice, body: { message_type: 'text', client_phone: phone, text_message: 'x' } }), 409, 'Recipient has opted out of text messages');
});

test('HELP and INFO get the configured help text; a keyword inside a sentence is an ordinary reply', async () => {
  const phone = newPhone();
  await sendTo(alice, { client_phone: phone });
  expect((await text(phone, 'help')).status).toBe(200);
  expect((await text(phone, ' INFO')).status).toBe(200);
  expect((await text(phone, 'please stop calling me at work')).status).toBe(200);
  expect(carrier.replies.filter((r) => r.to === phone).map((r) => r.text)).toEqual([HELP_TEXT, HELP_TEXT]);
  await sendTo(alice, { client_phone: phone });
  expect((await receivedEvents(alice)).filter((e) => e.data.client_phone === phone)).toHaveLength(3);
});

test('a keyword\'s answer the carrier refuses changes nothing, and the log names neither the number nor the text', async () => {
  const phone = newPhone();
  await sendTo(alice, { client_phone: phone });
  const reply = carrier.reply;
  carrier.reply = async (to, body) => {
    throw new Error(`carrier says: cannot send "${body}" to ${to}`);
  };
  try {
    expect((await text(phone, 'STOP')).status).toBe(200);
  } finally {
    carrier.reply = reply;
  }
  expectProblem(await stack.api('POST', '/messages', { token: alice, body: { message_type: 'text', client_phone: phone, text_message: 'x' } }), 409, 'Recipient has opted out of text messages');
  const failed = log.lines.filter((line) => line.event === 'carrier.reply_failed');
  expect(failed).toHaveLength(1);
  expect(JSON.stringify(log.lines)).not.toContain(phone.slice(1));
  expect(JSON.stringify(log.lines)).not.toContain('STOP');
});

test('an unsigned inbound callback is a 403 and stores nothing', async () => {
  const phone = newPhone();
  await sendTo(alice, { client_phone: phone });
  const body: TestInbound = { kind: 'inbound', ref: 'in-forged-1', from: phone, to: '+15550001000', text: 'STOP' };
  expectProblem(await carrier.post(originOf(callbacks), inboundPath, body, null), 403, 'Invalid signature');
  expectProblem(await carrier.post(originOf(callbacks), inboundPath, body, 'cd'.repeat(32)), 403, 'Invalid signature');
  expect(await stack.prisma.message.count({ where: { phone, direction: 'inbound' } })).toBe(0);
  expect(await stack.prisma.optOut.count({ where: { phone } })).toBe(0);
  await sendTo(alice, { client_phone: phone });
});

test('a flood of unsigned callbacks from one address gets 429s with Retry-After before any signature check; a signed text from the carrier\'s address during it is received', async () => {
  const limited = await stack.startApi({ trustProxy: true, publicDoorLimits: { perSource: 6000, failedPerSource: 10, failedTotal: 100 } });
  const phone = newPhone();
  await sendTo(alice, { client_phone: phone });
  const post = (body: TestInbound, source: string, signed: boolean) => {
    const raw = JSON.stringify(body);
    return fetch(originOf(limited) + inboundPath, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': source, ...(signed && { 'x-test-signature': carrier.sign(inboundPath, raw) }) },
      body: raw,
    });
  };
  const checks = jest.spyOn(carrier, 'verify');
  try {
    const forged: TestInbound = { kind: 'inbound', ref: 'in-flood', from: phone, to: '+15550001000', text: 'STOP' };
    const [flood, genuine] = await Promise.all([
      Promise.all(Array.from({ length: 100 }, () => post(forged, '198.51.100.9', false))),
      post({ kind: 'inbound', ref: uniqueName('in'), from: phone, to: '+15550001000', text: 'Still here' }, '203.0.113.30', true),
    ]);
    const statuses = flood.map((a) => a.status);
    expect(statuses.filter((s) => s === 403)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(90);
    expect(Number(flood.find((a) => a.status === 429)!.headers.get('retry-after'))).toBeGreaterThan(0);
    // The refused ones cost no signature check (nor the look-up of the number's account before it).
    expect(checks).toHaveBeenCalledTimes(11);
    expect(genuine.status).toBe(200);
    expect(await stack.prisma.message.count({ where: { phone, direction: 'inbound' } })).toBe(1);
  } finally {
    checks.mockRestore();
    await limited.stop();
  }
});
