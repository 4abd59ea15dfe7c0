import { MockActivityEnvironment } from '@temporalio/testing';
import { createReconcileActivities } from '../../../src/activities/housekeeping/reconcile';
import { CarrierRejected, CarrierUnavailable } from '../../../src/carriers';
import { messageBatchWorkflowId } from '../../../src/domain';
import { phoneSequence } from '../../support/helpers';
import { eventually, originOf, uniqueName, type TestApi, type TestStack } from '../../support/stack';
import { createTestCarrier, startCarrierStack } from '../../support/test-carrier';
import { untilListedEnded } from '../../support/listed-ended';

/**
 * How a batch's run sends, through a carrier: what changed between accept and due (an opt-out, a single
 * cancel) is skipped, refusals and passing failures are handled per message, and what an operator does
 * to the run in the Temporal UI leaves the rows consistent.
 */
const carrier = createTestCarrier();
let stack: TestStack;
let callbacks: TestApi;
let token: string;

beforeAll(async () => ({ stack, callbacks, token } = await startCarrierStack(carrier)));
afterAll(() => stack.stop());

const newPhone = phoneSequence('+1628556', 1000);
const textIn = (from: string, text: string) =>
  carrier.post(originOf(callbacks), `/providers/${carrier.name}/inbound`, { kind: 'inbound', ref: uniqueName('in'), from, to: carrier.sender, text });
const batch = (body: Record<string, unknown>) => stack.api('POST', '/messages/batch', { token, body: { message_type: 'text', text_message: 'Our sale starts now', ...body } });
const message = async (id: string) => (await stack.api('GET', `/messages/${id}`, { token })).body;
const finished = (batchId: string) =>
  eventually(async () => {
    const view = (await stack.api('GET', `/messages/batch/${batchId}`, { token })).body;
    return view.finished_at ? view : undefined;
  }, 30_000);
const sendsTo = (phone: string) => carrier.sends.filter((s) => s.to === phone);
const eventTypesOf = async (id: string) =>
  (await stack.api('GET', '/events?type=message.*&limit=100', { token })).body.events.filter((e: any) => e.data._id === id).map((e: any) => e.type);

test('an opt-out and a single cancel between accept and due are skipped; an earlier opt-out is refused at accept; the rest is sent once with its events', async () => {
  const [stopsLater, canceled, sent, stoppedBefore] = [newPhone(), newPhone(), newPhone(), newPhone()];
  expect((await textIn(stoppedBefore, 'STOP')).status).toBe(200);
  const res = await batch({ delay: '3s', recipients: [stopsLater, canceled, sent, stoppedBefore].map((client_phone) => ({ client_phone })) });
  expect(res.status).toBe(202);
  const [a, b, c, d] = res.body.results;
  expect(d).toEqual({ index: 3, status: 'rejected', error: { type: '/problems/conflict', status: 409, detail: 'Recipient has opted out of text messages' } });
  expect((await textIn(stopsLater, 'STOP')).status).toBe(200);
  expect((await stack.api('POST', `/messages/${b._id}/cancel`, { token })).body.status).toBe('canceled');

  const view = await finished(res.body.batch_id);
  expect(view.counts).toEqual(expect.objectContaining({ sent: 1, suppressed: 1, canceled: 1, scheduled: 0, sending: 0 }));
  expect(await message(a._id)).toEqual(expect.objectContaining({ status: 'suppressed', suppressed_reason: 'Recipient has opted out of text messages', attempts: 0 }));
  expect((await message(b._id)).status).toBe('canceled');
  expect(await message(c._id)).toEqual(expect.objectContaining({ status: 'sent', attempts: 1, provider_ref: `ref-${c._id}` }));
  expect([sendsTo(stopsLater).length, sendsTo(canceled).length, sendsTo(sent).length, sendsTo(stoppedBefore).length]).toEqual([0, 0, 1, 0]);
  expect(await eventTypesOf(c._id)).toEqual(['message.scheduled', 'message.sending', 'message.sent']);
  expect(await eventTypesOf(a._id)).toEqual(['message.scheduled', 'message.suppressed']);
  const result = await stack.temporal.workflow.getHandle(messageBatchWorkflowId(stack.business, res.body.batch_id)).result();
  expect(result).toEqual(expect.objectContaining({ sent: 1, failed: 0, skipped: 1 }));
});

test('a refusal fails that message alone with the carrier code (and records an unsubscribe); a passing failure is retried and sent once', async () => {
  const [refused, flaky, fine] = [newPhone(), newPhone(), newPhone()];
  let flakyCalls = 0;
  carrier.onSend = async (send) => {
    if (send.to === refused) throw new CarrierRejected('21610', 'The recipient has unsubscribed', true);
    if (send.to === flaky && ++flakyCalls === 1) throw new CarrierUnavailable('Carrier answered 503');
    return { providerRef: `ref-${send.id}` };
  };
  try {
    const res = await batch({ recipients: [refused, flaky, fine].map((client_phone) => ({ client_phone })) });
    const [r, f, ok] = res.body.results;
    const view = await finished(res.body.batch_id);
    expect(view.counts).toEqual(expect.objectContaining({ sent: 2, failed: 1 }));
    expect(await message(r._id)).toEqual(expect.objectContaining({ status: 'failed', error_code: '21610' }));
    expect(await message(f._id)).toEqual(expect.objectContaining({ status: 'sent', attempts: 2 }));
    expect((await message(ok._id)).status).toBe('sent');
    expect([sendsTo(refused).length, sendsTo(flaky).length, sendsTo(fine).length]).toEqual([1, 2, 1]);
    // The unsubscribe now refuses new sends to that number.
    const again = await batch({ recipients: [{ client_phone: refused }] });
    expect(again.status).toBe(400);
    expect(again.body.results[0].error.detail).toBe('Recipient has opted out of text messages');
  } finally {
    carrier.onSend = async (send) => ({ providerRef: `ref-${send.id}` });
  }
});

test('an operator canceling the waiting batch run in the Temporal UI cancels its messages (by operator), none is sent', async () => {
  const phone = newPhone();
  const res = await batch({ delay: '1h', recipients: [{ client_phone: phone }, { client_phone: newPhone() }] });
  const handle = stack.temporal.workflow.getHandle(messageBatchWorkflowId(stack.business, res.body.batch_id));
  await handle.cancel();
  await expect(handle.result()).rejects.toThrow();
  const first = await eventually(async () => {
    const m = await message(res.body.results[0]._id);
    return m.status === 'canceled' ? m : undefined;
  });
  expect(first.canceled_by).toEqual({ actor: 'operator', reason: 'operator' });
  expect((await stack.api('GET', `/messages/batch/${res.body.batch_id}`, { token })).body.counts).toEqual(expect.objectContaining({ canceled: 2, scheduled: 0 }));
  expect(sendsTo(phone)).toEqual([]);
});

test('a terminated batch run is restarted by the reconciler and sends its messages once when due', async () => {
  const phone = newPhone();
  const res = await batch({ delay: '4s', recipients: [{ client_phone: phone }] });
  const workflowId = messageBatchWorkflowId(stack.business, res.body.batch_id);
  await stack.temporal.workflow.getHandle(workflowId).terminate('operator test');
  await untilListedEnded(stack.temporal, workflowId);

  const reconciler = createReconcileActivities({ prisma: stack.prisma, temporal: stack.temporal, taskQueue: stack.taskQueue });
  const result = (await new MockActivityEnvironment().run(reconciler.reconcileOrphans, { graceMs: 0, business: stack.business, full: true })) as { messagesRestarted: number };
  expect(result.messagesRestarted).toBeGreaterThanOrEqual(1);
  expect((await stack.temporal.workflow.getHandle(workflowId).describe()).status.name).toBe('RUNNING');
  const view = await finished(res.body.batch_id);
  expect(view.counts).toEqual(expect.objectContaining({ sent: 1 }));
  expect(sendsTo(phone)).toHaveLength(1);
  // Its messages never got runs of their own.
  expect(await stack.temporal.workflow.getHandle(`message/${stack.business}/${res.body.results[0]._id}`).describe().catch((e: Error) => e.name)).toBe('WorkflowNotFoundError');
});
