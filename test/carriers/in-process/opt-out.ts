import { Worker } from '@temporalio/worker';
import { CarrierRejected, type CarrierSend } from '../../../src/carriers';
import { expectProblem, phoneSequence, waitForStatus as waitForMessageStatus } from '../../support/helpers';
import { originOf, uniqueName, type TestApi, type TestStack } from '../../support/stack';
import { createTestCarrier, startCarrierStack } from '../../support/test-carrier';
import { runFailure } from '../../support/message-run';

/**
 * Opt-outs reaching the sending side: a message scheduled before its recipient texted STOP is not sent
 * when due but ends `suppressed`; a carrier's "unsubscribed" refusal records the opt-out as STOP does.
 * Each test owns its phone and its carrier refusal: they run side by side (`test.concurrent`,
 * docs/design.md "Suite: concurrent tests inside a file").
 */
const carrier = createTestCarrier();
let stack: TestStack;
let callbacks: TestApi;
let token: string;

const stop = (from: string) =>
  carrier.post(originOf(callbacks), `/providers/${carrier.name}/inbound`, { kind: 'inbound', ref: uniqueName('in'), from, to: carrier.sender, text: 'STOP' });

/** The carrier's refusals in force, each a test's own: a send none of them refuses is accepted. */
const refusals = new Set<(send: CarrierSend) => CarrierRejected | undefined>();
carrier.onSend = async (send) => {
  for (const refusalOf of refusals) {
    const refusal = refusalOf(send);
    if (refusal) throw refusal;
  }
  return { providerRef: `ref-${send.id}` };
};

beforeAll(async () => ({ stack, callbacks, token } = await startCarrierStack(carrier)));
afterAll(() => stack.stop());

/** Runs `steps` while the carrier refuses the sends `refusalOf` refuses; it accepts them again after. */
async function whileRefusing(refusalOf: (send: CarrierSend) => CarrierRejected | undefined, steps: () => Promise<void>): Promise<void> {
  refusals.add(refusalOf);
  try {
    await steps();
  } finally {
    refusals.delete(refusalOf);
  }
}
/** Every send to `phone` refused with `refusal`. */
const refusingTo = (phone: string, refusal: CarrierRejected) => (send: CarrierSend) => (send.to === phone ? refusal : undefined);

const newPhone = phoneSequence('+1628555', 2000);
const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  stack.api('POST', '/messages', { token, body: { message_type: 'text', text_message: 'Reminder: your visit is today', ...body }, headers });
const waitForStatus = (id: string, status: string) => waitForMessageStatus(stack.api, token, id, status);
const eventTypesOf = async (id: string) =>
  (await stack.api('GET', '/events?type=message.*&limit=100', { token })).body.events.filter((e: any) => e.data._id === id).map((e: any) => e.type);

test.concurrent('a message scheduled before its recipient texted STOP ends suppressed when due, and is never handed to the carrier', async () => {
  const phone = newPhone();
  // Due 2 s on: one request, the STOP, has to land before it (else it is sent, and the test fails).
  const accepted = await post({ client_phone: phone, delay: '2s' }, { 'Idempotency-Key': 'before-stop' });
  expect(accepted.status).toBe(202);
  expect((await stop(phone)).status).toBe(200);

  const suppressed = await waitForStatus(accepted.body._id, 'suppressed');
  expect(suppressed).toEqual(expect.objectContaining({ suppressed_reason: 'Recipient has opted out of text messages', suppressed_at: expect.any(String), sent_at: null, attempts: 0 }));
  expect(await stack.temporal.workflow.getHandle(accepted.body.workflow_id).result()).toEqual({ outcome: 'suppressed' });
  expect(carrier.sends.filter((s) => s.to === phone)).toEqual([]);
  expect(await eventTypesOf(accepted.body._id)).toEqual(['message.scheduled', 'message.suppressed']);

  // The request accepted before the opt-out, repeated, still gets its first answer; a new one is refused.
  const replay = await post({ client_phone: phone, delay: '2s' }, { 'Idempotency-Key': 'before-stop' });
  expect(replay.status).toBe(202);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body._id).toBe(accepted.body._id);
  expectProblem(await post({ client_phone: phone }, { 'Idempotency-Key': 'after-stop' }), 409, 'Recipient has opted out of text messages');
});

test.concurrent('a carrier refusing a send because the recipient unsubscribed fails it with its code and records the opt-out', async () => {
  const phone = newPhone();
  await whileRefusing(refusingTo(phone, new CarrierRejected('21610', 'The recipient has unsubscribed', true)), async () => {
    const accepted = await post({ client_phone: phone });
    const failed = await waitForStatus(accepted.body._id, 'failed');
    expect(failed).toEqual(expect.objectContaining({ error_code: '21610', error: `The recipient has unsubscribed (${carrier.name} error 21610)` }));
    const records = await stack.api('GET', `/opt-outs?phone=${encodeURIComponent(phone)}`, { token });
    expect(records.body.opt_outs).toEqual([expect.objectContaining({ phone, sender: carrier.sender, status: 'opted_out', source: 'carrier', detail: '21610' })]);
    expectProblem(await post({ client_phone: phone }), 409, 'Recipient has opted out of text messages');
    // The run that passed the refusal's details on replays from its history.
    const handle = stack.temporal.workflow.getHandle(accepted.body.workflow_id);
    expect(await runFailure(handle)).toMatchObject({ type: 'MessageFailed', nonRetryable: true });
    await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } }, await handle.fetchHistory(), accepted.body.workflow_id);
  });
});

test.concurrent('any other refusal fails the message with the carrier\'s code and opts nobody out', async () => {
  const phone = newPhone();
  await whileRefusing(refusingTo(phone, new CarrierRejected('21614', 'The number is not a mobile number', false)), async () => {
    const accepted = await post({ client_phone: phone });
    expect(await waitForStatus(accepted.body._id, 'failed')).toEqual(expect.objectContaining({ error_code: '21614' }));
    expect((await stack.api('GET', `/opt-outs?phone=${encodeURIComponent(phone)}`, { token })).body.opt_outs).toEqual([]);
  });
  const next = await post({ client_phone: phone });
  expect(next.status).toBe(202);
  await waitForStatus(next.body._id, 'sent');
});

test.concurrent('each message records the sender it goes out from; a number opted out of another sender is not refused', async () => {
  const phone = newPhone();
  await stack.prisma.optOut.create({ data: { sender: '+15559999999', phone, status: 'opted_out', source: 'keyword', detail: 'STOP', optedOutAt: new Date() } });
  const accepted = await post({ client_phone: phone });
  expect(accepted.status).toBe(202);
  await waitForStatus(accepted.body._id, 'sent');
  expect((await stack.prisma.message.findUniqueOrThrow({ where: { id: accepted.body._id } })).sender).toBe(carrier.sender);
});

test.concurrent('GET /opt-outs shows a record only to a business that texted the number: a client at it, or a send the carrier refused, is answered as an unknown number', async () => {
  const [phone, unknown] = [newPhone(), newPhone()];
  const rivalBusiness = uniqueName('rival');
  const mallory = stack.token('mallory');
  const rival = (method: string, path: string, options: { token?: string; body?: unknown } = {}) => stack.api(method, `//ext/v2/${rivalBusiness}${path}`, { token: mallory, ...options });
  expect((await rival('POST', '/clients', { body: { _id: 'c-curious', name: 'Curious', phone } })).status).toBe(201);
  // Twilio refuses a body over 1,600 characters (21617): the rival's text never reaches the phone.
  const tooLong = (send: CarrierSend) => (send.text.length > 1600 ? new CarrierRejected('21617', 'The message body exceeds the 1600 character limit', false) : undefined);
  await whileRefusing(tooLong, async () => {
    const refused = await rival('POST', '/messages', { body: { message_type: 'text', client: 'c-curious', text_message: 'x'.repeat(1700) } });
    expect(refused.status).toBe(202);
    expect(await waitForMessageStatus(rival, mallory, refused.body._id, 'failed')).toEqual(expect.objectContaining({ error_code: '21617' }));
  });
  const sent = await post({ client_phone: phone });
  await waitForStatus(sent.body._id, 'sent');
  expect((await stop(phone)).status).toBe(200);

  const lookup = async (api: typeof rival, number: string) => {
    const res = await api('GET', `/opt-outs?phone=${encodeURIComponent(number)}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const nothing = await lookup(rival, unknown);
  expect(nothing).toEqual({ opt_outs: [], next_cursor: null });
  expect(await lookup(rival, phone)).toEqual(nothing);
  expect((await rival('GET', '/opt-outs')).body.opt_outs.filter((record: { phone: string }) => record.phone === phone)).toEqual([]);
  // The business that texted it sees it.
  const mine = (method: string, path: string) => stack.api(method, path, { token });
  expect((await lookup(mine, phone)).opt_outs).toEqual([expect.objectContaining({ phone, sender: carrier.sender, status: 'opted_out', source: 'keyword', detail: 'STOP' })]);
});

test.concurrent("an opt-out outlives the erasure of the client at its phone: still listed to its user, still refused at accept and when due", async () => {
  const phone = newPhone();
  const listed = async () => (await stack.api('GET', `/opt-outs?phone=${encodeURIComponent(phone)}`, { token })).body.opt_outs;
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c-stopped', name: 'Ada', phone } })).status).toBe(201);
  await waitForStatus((await post({ client: 'c-stopped' })).body._id, 'sent');
  // Accepted for the bare phone before the STOP: not the client's, so the erasure leaves it to come due
  // (3 s on: after the erasure, which the check below it shows).
  const due = await post({ client_phone: phone, delay: '3s' });
  expect(due.status).toBe(202);
  expect((await stop(phone)).status).toBe(200);
  const record = expect.objectContaining({ phone, sender: carrier.sender, status: 'opted_out', source: 'keyword' });
  expect(await listed()).toEqual([record]);

  expect((await stack.api('DELETE', '/clients/c-stopped', { token })).status).toBe(204);
  expect((await stack.api('GET', `/messages/${due.body._id}`, { token })).body.status).toBe('scheduled');
  expect(await listed()).toEqual([record]);
  expectProblem(await post({ client_phone: phone }), 409, 'Recipient has opted out of text messages');
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c-stopped', name: 'Ada', phone } })).status).toBe(201);
  expectProblem(await post({ client: 'c-stopped' }), 409, 'Recipient has opted out of text messages');
  await waitForStatus(due.body._id, 'suppressed');
  expect(carrier.sends.filter((s) => s.to === phone)).toHaveLength(1);
  // Another user, who never texted the phone, still learns nothing of it.
  expect((await stack.api('GET', `/opt-outs?phone=${encodeURIComponent(phone)}`, { token: stack.token(uniqueName('other')) })).body.opt_outs).toEqual([]);
});
