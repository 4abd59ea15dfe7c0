import { randomUUID } from 'node:crypto';
import { httpMetrics, type HttpMetrics } from '../../../src/api';
import { expectProblem, memoryLogger, waitForStatus as waitForMessageStatus } from '../../support/helpers';
import { originOf, type TestApi, type TestStack } from '../../support/stack';
import { createTestCarrier, startCarrierStack, TEST_PUBLIC_BASE_URL, type TestReceipt } from '../../support/test-carrier';

/**
 * A carrier's delivery receipts through the public callback route: real HTTP on the API, real
 * PostgreSQL, the message sent by a real worker through the carrier. Receipts may come twice, out of
 * order, for messages we do not know, or forged.
 */
const PHONE = '+14155550142';
const carrier = createTestCarrier();
let stack: TestStack;
let callbacks: TestApi;
let metrics: HttpMetrics;
let token: string;
const log = memoryLogger();

const statusPath = (id?: string) => `/providers/${carrier.name}/status${id ? `/${id}` : ''}`;
const postReceipt = (body: Omit<TestReceipt, 'kind'>, id?: string, signature?: string | null) =>
  carrier.post(originOf(callbacks), statusPath(id), { ...body, kind: 'status' }, signature);

beforeAll(async () => {
  metrics = httpMetrics();
  ({ stack, callbacks, token } = await startCarrierStack(carrier, { metrics, logger: log.logger }));
  await stack.api('POST', '/clients', { token, body: { _id: 'c-1', name: 'Ada', phone: PHONE } });
});
afterAll(() => stack.stop());

const getMessage = async (id: string) => (await stack.api('GET', `/messages/${id}`, { token })).body;
const waitForStatus = (id: string, status: string) => waitForMessageStatus(stack.api, token, id, status);

async function sent(text = 'Your order shipped'): Promise<any> {
  const res = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c-1', text_message: text } });
  expect(res.status).toBe(202);
  return waitForStatus(res.body._id, 'sent');
}

/** The message's events in the feed, by type, in commit order. */
async function eventTypesOf(id: string): Promise<string[]> {
  const res = await stack.api('GET', '/events?type=message.*&client=c-1&limit=100', { token });
  return res.body.events.filter((e: any) => e.data._id === id).map((e: any) => e.type);
}

test('each send asks for its receipt at the message\'s callback URL; a signed `delivered` receipt delivers it, once', async () => {
  const message = await sent();
  const send = carrier.sends.find((s) => s.id === message._id)!;
  expect(send.statusCallbackUrl).toBe(`${TEST_PUBLIC_BASE_URL}${statusPath(message._id)}`);
  expect(message.provider_ref).toBe(`ref-${message._id}`);

  const at = new Date(Date.now() + 1500).toISOString();
  const receipt = { ref: `ref-${message._id}`, status: 'delivered' as const, price: { amount: '-0.0079', unit: 'USD' }, at };
  const first = await postReceipt(receipt, message._id);
  expect(first.status).toBe(200);
  expect(first.body).toEqual({ received: true });
  const delivered = await getMessage(message._id);
  expect(delivered).toEqual(
    expect.objectContaining({ status: 'delivered', delivered_at: at, price: { amount: '-0.0079', unit: 'USD' }, error_code: null, sent_at: message.sent_at }),
  );

  // The carrier retries its callback: nothing changes, no second event.
  expect((await postReceipt(receipt, message._id)).status).toBe(200);
  expect(await getMessage(message._id)).toEqual(delivered);
  expect(await eventTypesOf(message._id)).toEqual(['message.scheduled', 'message.sending', 'message.sent', 'message.delivered']);

  const scraped = await metrics.registry.getSingleMetricAsString('crm_message_sent_to_delivered_seconds');
  expect(scraped).toMatch(/crm_message_sent_to_delivered_seconds_count 1\b/);
});

test('a receipt that ends a message leaves one info line naming it, never its phone or text', async () => {
  const delivered = await sent('Your parcel is at the door');
  const undelivered = await sent('Your parcel is at the depot');
  expect((await postReceipt({ ref: `ref-${delivered._id}`, status: 'delivered' }, delivered._id)).status).toBe(200);
  expect((await postReceipt({ ref: `ref-${undelivered._id}`, status: 'undelivered', error_code: '30003' }, undelivered._id)).status).toBe(200);
  // A repeat changes nothing, and says nothing more.
  expect((await postReceipt({ ref: `ref-${delivered._id}`, status: 'delivered' }, delivered._id)).status).toBe(200);
  const lines = log.lines.filter((line) => [delivered._id, undelivered._id].includes(line.id) && /^message\./.test(line.event));
  expect(lines).toEqual([
    expect.objectContaining({ level: 'info', event: 'message.delivered', provider: carrier.name, id: delivered._id, business: stack.business }),
    expect.objectContaining({ level: 'info', event: 'message.undelivered', provider: carrier.name, id: undelivered._id, business: stack.business, errorCode: '30003' }),
  ]);
  expect(JSON.stringify(lines)).not.toMatch(/parcel|\+1415/);
});

test('the same receipt arriving many times at once is applied once, with one event', async () => {
  const message = await sent();
  const answers = await Promise.all(Array.from({ length: 8 }, () => postReceipt({ ref: `ref-${message._id}`, status: 'delivered' }, message._id)));
  expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
  expect(await eventTypesOf(message._id)).toEqual(['message.scheduled', 'message.sending', 'message.sent', 'message.delivered']);
});

test('out of order: an older status or another final one after `delivered` changes nothing', async () => {
  const message = await sent();
  const ref = `ref-${message._id}`;
  expect((await postReceipt({ ref, status: 'delivered' }, message._id)).status).toBe(200);
  const delivered = await getMessage(message._id);
  for (const status of ['sent', 'undelivered', 'failed'] as const) {
    expect((await postReceipt({ ref, status, error_code: '30003' }, message._id)).status).toBe(200);
  }
  expect(await getMessage(message._id)).toEqual(delivered);
  expect(await eventTypesOf(message._id)).toEqual(['message.scheduled', 'message.sending', 'message.sent', 'message.delivered']);
});

test('`undelivered` keeps the carrier\'s error code and is final; a receipt without our id is found by the carrier\'s', async () => {
  const message = await sent();
  const ref = `ref-${message._id}`;
  expect((await postReceipt({ ref, status: 'undelivered', error_code: '30005' })).status).toBe(200);
  const undelivered = await getMessage(message._id);
  expect(undelivered).toEqual(expect.objectContaining({ status: 'undelivered', error_code: '30005', delivered_at: null }));
  expect(undelivered.error).toBe('The carrier reported the message undelivered (error 30005)');
  expect((await postReceipt({ ref, status: 'delivered' })).status).toBe(200);
  expect(await getMessage(message._id)).toEqual(undelivered);
  expect(await eventTypesOf(message._id)).toEqual(['message.scheduled', 'message.sending', 'message.sent', 'message.undelivered']);
});

test('a carrier-reported failure after `sent` ends the message failed, with message.failed', async () => {
  const message = await sent();
  expect((await postReceipt({ ref: `ref-${message._id}`, status: 'failed', error_code: '30008' }, message._id)).status).toBe(200);
  expect(await getMessage(message._id)).toEqual(expect.objectContaining({ status: 'failed', error_code: '30008' }));
  expect(await eventTypesOf(message._id)).toEqual(['message.scheduled', 'message.sending', 'message.sent', 'message.failed']);
});

test('a receipt for a message we do not know is a 200 that changes nothing; a `queued` receipt too', async () => {
  const message = await sent();
  const before = await getMessage(message._id);
  expect((await postReceipt({ ref: 'ref-nobody', status: 'delivered' }, randomUUID())).status).toBe(200);
  expect((await postReceipt({ ref: 'ref-nobody', status: 'delivered' }, 'not-a-message-id')).status).toBe(200);
  expect((await postReceipt({ ref: 'ref-nobody', status: 'delivered' })).status).toBe(200);
  expect((await postReceipt({ ref: `ref-${message._id}`, status: 'queued' }, message._id)).status).toBe(200);
  // A signed receipt of another message replayed to this one's URL: its carrier id is not this message's.
  expect((await postReceipt({ ref: 'ref-other', status: 'delivered' }, message._id)).status).toBe(200);
  expect(await getMessage(message._id)).toEqual(before);
});

test('a missing or wrong signature is a 403 and changes nothing; another carrier\'s route is a 404', async () => {
  const message = await sent();
  const receipt: TestReceipt = { kind: 'status', ref: `ref-${message._id}`, status: 'delivered' };
  expectProblem(await postReceipt(receipt, message._id, null), 403, 'Invalid signature');
  expectProblem(await postReceipt(receipt, message._id, 'ab'.repeat(32)), 403, 'Invalid signature');
  // The signature covers the URL: one made for the route without the id does not pass on the route with it.
  expectProblem(await postReceipt(receipt, message._id, carrier.sign(statusPath(), JSON.stringify(receipt))), 403, 'Invalid signature');
  const wrongCarrier = await carrier.post(originOf(callbacks), `/providers/vonage/status/${message._id}`, receipt);
  expectProblem(wrongCarrier, 404, `No route for POST /providers/vonage/status/${message._id}`);
  expect(await getMessage(message._id)).toEqual(message);
  expect(await eventTypesOf(message._id)).toEqual(['message.scheduled', 'message.sending', 'message.sent']);
});

test('a signature check that throws (a header the SDK cannot parse) is a 403, not a 500', async () => {
  const throwing = createTestCarrier();
  throwing.verify = () => {
    throw new Error('malformed signature header');
  };
  const api = await stack.startApi({ carrier: throwing });
  expectProblem(await throwing.post(originOf(api), statusPath(randomUUID()), { kind: 'status', ref: 'x', status: 'delivered' }), 403, 'Invalid signature');
});

test('a signed body the carrier cannot read is a 400; one over 100 kB a 413; nothing changes', async () => {
  const message = await sent();
  expectProblem(await carrier.post(originOf(callbacks), statusPath(message._id), 'not json'), 400, 'Unreadable carrier callback');
  const huge = JSON.stringify({ kind: 'status', ref: `ref-${message._id}`, status: 'delivered', padding: 'x'.repeat(120_000) });
  expectProblem(await carrier.post(originOf(callbacks), statusPath(message._id), huge), 413, 'Request body is larger than 100 kB');
  expect(await getMessage(message._id)).toEqual(message);
});

test('Twilio (and the simulator) get an empty TwiML answer, so Twilio sends no reply', async () => {
  const twilio = createTestCarrier({ name: 'twilio' });
  const api = await stack.startApi({ carrier: twilio });
  const res = await twilio.post(originOf(api), `/providers/twilio/status/${randomUUID()}`, { kind: 'status', ref: 'SMnobody', status: 'delivered' });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/xml/);
  expect(res.body).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>');
});

test('a receipt that overtakes the run (row still sending) is kept, and the run does not move it back', async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let handedOver!: (id: string) => void;
  const sending = new Promise<string>((resolve) => (handedOver = resolve));
  carrier.onSend = async (send) => {
    handedOver(send.id);
    await held;
    return { providerRef: `ref-${send.id}` };
  };
  try {
    const res = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c-1', text_message: 'Overtaken' } });
    const id = await sending;
    expect(id).toBe(res.body._id);
    expect((await getMessage(id)).status).toBe('sending');
    // The carrier's `sent` receipt names its id before its API call has answered.
    expect((await postReceipt({ ref: `ref-${id}`, status: 'sent' }, id)).status).toBe(200);
    expect(await getMessage(id)).toEqual(expect.objectContaining({ status: 'sending', provider_ref: `ref-${id}` }));
    expect((await postReceipt({ ref: `ref-${id}`, status: 'delivered' }, id)).status).toBe(200);
    expect((await getMessage(id)).status).toBe('delivered');
    release();
    const run = stack.temporal.workflow.getHandle(res.body.workflow_id);
    expect(await run.result()).toEqual({ outcome: 'delivered' });
    expect(await getMessage(id)).toEqual(expect.objectContaining({ status: 'delivered', provider_ref: `ref-${id}` }));
    expect(await eventTypesOf(id)).toEqual(['message.scheduled', 'message.sending', 'message.delivered']);
  } finally {
    carrier.onSend = async (send) => ({ providerRef: `ref-${send.id}` });
    release();
  }
});

test('without a carrier configured, the callback routes are 404s', async () => {
  const plain = await stack.startApi({ carrier: undefined });
  const res = await carrier.post(originOf(plain), statusPath(randomUUID()), { kind: 'status', ref: 'x', status: 'delivered' });
  expect(res.status).toBe(404);
});
