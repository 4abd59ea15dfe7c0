import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createActivities } from '../../../src/activities';
import type { MessageProvider } from '../../../src/activities/providers';
import { CarrierRejected } from '../../../src/carriers';
import { createPrisma, type Prisma } from '../../../src/db/prisma';
import { MESSAGE_RECEIPT_WAIT_MS, MESSAGE_STATUS, messageWorkflowId, RECONCILE_WORKFLOW, type ReconcileResult } from '../../../src/domain';
import { createTimeSkippingEnvironment, eventually, uniqueName, waitForStatus as waitForMessageStatus } from '../../support/helpers';
import { testSecretBox } from '../../support/secrets';
import { startTestStack, type TestApi, type TestStack } from '../../support/stack';
import { createTestCarrier, TEST_PUBLIC_BASE_URL } from '../../support/test-carrier';
import { runFailure } from '../../support/message-run';

/**
 * The run of a message follows what the API shows: its MessageStatus search attribute and its details
 * move with the carrier's receipts after the hand-over, and say why a message failed, in words. A message
 * that ends failed or undelivered ends its run Failed (the UI's failure filter finds it), for good.
 */
const PHONE = '+14155550177';
const carrier = createTestCarrier();
carrier.describeCode = (code) => (code === '30003' ? "The recipient's handset is unreachable" : undefined);
let stack: TestStack;
let callbacks: TestApi;
let token: string;

beforeAll(async () => {
  stack = await startTestStack({ carrier, env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL } });
  callbacks = await stack.startApi();
  token = stack.token('alice');
  await stack.api('POST', '/clients', { token, body: { _id: 'c-1', name: 'Ada', phone: PHONE } });
});
afterAll(() => stack.stop());

const origin = () => callbacks.baseUrl.replace(/\/ext\/v2\/.*$/, '');
const postReceipt = (id: string, status: 'delivered' | 'undelivered' | 'failed', errorCode?: string) =>
  carrier.post(origin(), `/providers/${carrier.name}/status/${id}`, { kind: 'status', ref: `ref-${id}`, status, ...(errorCode && { error_code: errorCode }) });

async function sent(): Promise<{ id: string; handle: WorkflowHandle }> {
  const res = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c-1', text_message: 'Your order shipped' } });
  expect(res.status).toBe(202);
  await waitForMessageStatus(stack.api, token, res.body._id, 'sent');
  return { id: res.body._id, handle: stack.temporal.workflow.getHandle(res.body.workflow_id) };
}

const statusOf = async (handle: WorkflowHandle) => (await handle.describe()).typedSearchAttributes.get(MESSAGE_STATUS);
const detailsOf = async (handle: WorkflowHandle) => (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails;

/** The runs the documented operator query finds, by id. */
async function foundBy(status: string): Promise<string[]> {
  return foundWhere(`MessageStatus = '${status}'`);
}

/** The message runs of the test's business that a visibility query finds, by id (the UI's filters are such queries). */
async function foundWhere(condition: string): Promise<string[]> {
  const ids: string[] = [];
  const query = `WorkflowType = 'sendMessage' AND ${condition} AND BusinessName = '${stack.business}'`;
  for await (const run of stack.temporal.workflow.list({ query })) ids.push(run.workflowId);
  return ids;
}

test('a message the carrier reports undelivered after `sent` shows MessageStatus = undelivered and the reason in the run\'s details', async () => {
  const { id, handle } = await sent();
  // Handed over: the run stays open, waiting for the carrier's final word.
  expect((await handle.describe()).status.name).toBe('RUNNING');
  await eventually(async () => (await statusOf(handle)) === 'sent');

  expect((await postReceipt(id, 'undelivered', '30003')).status).toBe(200);
  const reason = "The carrier reported the message undelivered: The recipient's handset is unreachable (error 30003)";
  const failure = await runFailure(handle);
  expect(failure).toMatchObject({ type: 'MessageUndelivered', message: `Message ${id} undelivered: ${reason}`, nonRetryable: true });
  expect(failure.details).toEqual([{ messageId: id, outcome: 'undelivered', reason, code: '30003' }]);
  expect((await handle.describe()).status.name).toBe('FAILED');
  expect(await statusOf(handle)).toBe('undelivered');
  expect(await detailsOf(handle)).toBe(`Message ${id}: undelivered — ${reason}`);
  await eventually(async () => (await foundWhere(`ExecutionStatus = 'Failed'`)).includes(handle.workflowId));
  expect((await stack.api('GET', `/messages/${id}`, { token })).body).toEqual(expect.objectContaining({ status: 'undelivered', error_code: '30003' }));
  await eventually(async () => (await foundBy('undelivered')).includes(handle.workflowId));
  expect(await foundBy('sent')).not.toContain(handle.workflowId);
});

test('a delivered receipt shows MessageStatus = delivered and closes the run', async () => {
  const { id, handle } = await sent();
  expect((await postReceipt(id, 'delivered')).status).toBe(200);
  expect(await handle.result()).toEqual({ outcome: 'delivered' });
  expect(await statusOf(handle)).toBe('delivered');
  expect(await detailsOf(handle)).toBe(`Message ${id}: delivered`);
});

test('a carrier failure after `sent` shows failed, with the carrier\'s code', async () => {
  const { id, handle } = await sent();
  expect((await postReceipt(id, 'failed', '30008')).status).toBe(200);
  expect(await runFailure(handle)).toMatchObject({ type: 'MessageFailed', message: `Message ${id} failed: The carrier reported the message failed (error 30008)` });
  expect(await statusOf(handle)).toBe('failed');
  expect(await detailsOf(handle)).toBe(`Message ${id}: failed — The carrier reported the message failed (error 30008)`);
});

test('a carrier\'s refusal at send time says why in the run\'s details, in words, without the phone or the text', async () => {
  carrier.onSend = async () => {
    throw new CarrierRejected('21211', 'The recipient number is not a valid phone number');
  };
  try {
    const res = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c-1', text_message: 'Refused text' } });
    const handle = stack.temporal.workflow.getHandle(res.body.workflow_id);
    const reason = `The recipient number is not a valid phone number (${carrier.name} error 21211)`;
    const failure = await runFailure(handle);
    expect(failure).toMatchObject({ type: 'MessageFailed', message: `Message ${res.body._id} failed: ${reason}`, nonRetryable: true });
    expect(failure.details).toEqual([{ messageId: res.body._id, outcome: 'failed', reason, code: '21211' }]);
    expect(await statusOf(handle)).toBe('failed');
    const details = await detailsOf(handle);
    expect(details).toBe(`Message ${res.body._id}: failed — ${reason}`);
    // Nothing of the recipient in the run's history, where the failure's message is in clear.
    const history = JSON.stringify(await handle.fetchHistory());
    for (const text of [details, history]) {
      expect(text).not.toContain(PHONE);
      expect(text).not.toContain('Refused text');
    }

    // The failure is the end: the run is not retried, and the reconciler starts nothing for its final row.
    const { runId } = await handle.describe();
    expect((await handle.describe()).status.name).toBe('FAILED');
    const reconciled: ReconcileResult = await stack.temporal.workflow.execute(RECONCILE_WORKFLOW, {
      taskQueue: stack.taskQueue,
      workflowId: uniqueName('reconcile'),
      args: [{ graceMs: 0, business: stack.business }],
    });
    expect(reconciled.messagesRestarted).toBe(0);
    expect(await handle.describe()).toMatchObject({ runId, status: expect.objectContaining({ name: 'FAILED' }) });
    expect(carrier.sends.filter((m) => m.id === res.body._id)).toHaveLength(1);
  } finally {
    carrier.onSend = async (message) => ({ providerRef: `ref-${message.id}` });
  }
});

describe('the wait for a receipt is bounded (time-skipping server)', () => {
  let env: TestWorkflowEnvironment;
  let prisma: Prisma;
  const business = uniqueName('receipt-wait');
  const silentCarrier: MessageProvider = { name: 'telnyx', deliver: async (message) => ({ providerRef: `ref-${message.id}` }) };

  beforeAll(async () => {
    env = await createTimeSkippingEnvironment();
    prisma = createPrisma(process.env.TEST_DATABASE_URL!, 3);
  });
  afterAll(async () => {
    await env?.teardown();
    await prisma?.$disconnect();
  });

  async function run(change?: (id: string) => Promise<void>) {
    const id = randomUUID();
    const sendAt = new Date(await env.currentTimeMs());
    await prisma.message.create({ data: { id, business, ownerId: 'u1', messageType: 'text', phone: PHONE, text: 'Quiet carrier', sendAt, workflowId: messageWorkflowId(business, id) } });
    const taskQueue = `msg-${randomUUID()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
      activities: createActivities({ prisma, secrets: testSecretBox(), provider: silentCarrier, temporal: env.client, taskQueue }),
    });
    return worker.runUntil(async () => {
      const handle = await env.client.workflow.start('sendMessage', { workflowId: messageWorkflowId(business, id), taskQueue, args: [{ business, messageId: id, sendAt: sendAt.toISOString() }] });
      await eventually(async () => (await prisma.message.findUnique({ where: { id } }))?.status === 'sent');
      await change?.(id);
      const started = await env.currentTimeMs();
      const result = await handle.result().catch((error: unknown) => error);
      return { result, waitedMs: (await env.currentTimeMs()) - started };
    });
  }

  test('a carrier that never reports: the run closes `sent` after the bound', async () => {
    const { result, waitedMs } = await run();
    expect(result).toEqual({ outcome: 'sent' });
    expect(waitedMs).toBeGreaterThanOrEqual(MESSAGE_RECEIPT_WAIT_MS - 60_000);
  });

  test('a receipt whose signal was lost: at the bound the run shows what the row says', async () => {
    const { result } = await run(async (id) => {
      await prisma.message.update({ where: { id }, data: { status: 'undelivered', errorCode: '30005', error: 'The carrier reported the message undelivered (error 30005)' } });
    });
    expect(result).toBeInstanceOf(WorkflowFailedError);
    expect((result as WorkflowFailedError).cause).toMatchObject({ type: 'MessageUndelivered', message: expect.stringContaining('(error 30005)') });
  });
});
