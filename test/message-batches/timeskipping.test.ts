import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createLogProvider } from '../../src/activities/providers/log';
import { insertMessageBatch } from '../../src/db/message-batches';
import type { Prisma } from '../../src/db/prisma';
import { messageBatchWorkflowId, SEND_MESSAGE_BATCH_WORKFLOW } from '../../src/domain';
import { messageBatchWorkflowOptions } from '../../src/starters/send-message-batch-workflow';
import { openTimeSkipping, uniqueName } from '../support/helpers';
import { testSecretBox } from '../support/secrets';

/* A campaign due in 30 days, on the time-skipping test server with the real activities and database. */
let env: TestWorkflowEnvironment;
let prisma: Prisma;
let close: () => Promise<void>;
const business = uniqueName('skipbatch');
const DAY = 24 * 60 * 60 * 1000;

beforeAll(async () => ({ env, prisma, close } = await openTimeSkipping()));
afterAll(() => close?.());

test('1,000 recipients due in 30 days: the run sleeps in bounded chunks, then sends each once, in chunks', async () => {
  const sendAt = new Date((await env.currentTimeMs()) + 30 * DAY);
  const batchId = randomUUID();
  const messages = Array.from({ length: 1000 }, (_, i) => ({
    id: randomUUID(),
    clientPk: null,
    clientId: null,
    phone: `+1415666${String(i).padStart(4, '0')}`,
    name: null,
    text: `Campaign text ${i}`,
    sendAt,
    idempotencyKey: null,
    requestHash: null,
    encoding: 'GSM-7',
    segments: 1,
    sendWindow: null,
    deferredUntil: null,
    sender: null,
    channel: 'sms',
    media: null,
    template: null,
  }));
  const scope = { business, ownerId: 'u1' };
  await insertMessageBatch(prisma, scope, { id: batchId, sendAt, sendWindow: null, idempotencyKey: null, requestHash: null, total: 1000, results: [] }, messages);

  const taskQueue = `batch-${randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: `${taskQueue}-messages`,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    activities: createActivities({ prisma, secrets: testSecretBox(), provider: createLogProvider(prisma), temporal: env.client, taskQueue, campaigns: { chunkSize: 100, concurrency: 4 } }),
  });
  const { startDelay: _delay, ...options } = messageBatchWorkflowOptions(taskQueue, { id: batchId, business, sendAt, accepted: 1000 }, await env.currentTimeMs());
  const result = await worker.runUntil(async () => {
    const handle = await env.client.workflow.start(SEND_MESSAGE_BATCH_WORKFLOW, options);
    return handle.result();
  });
  expect(result).toEqual({ chunks: 10, sent: 1000, failed: 0, skipped: 0 });
  expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(sendAt.getTime());
  const rows = await prisma.message.findMany({ where: { batchId }, select: { status: true, attempts: true, batchChunk: true } });
  expect(rows.every((r) => r.status === 'sent' && r.attempts === 1)).toBe(true);
  expect(new Set(rows.map((r) => r.batchChunk)).size).toBe(10);
  expect(await prisma.logDelivery.count({ where: { messageId: { in: messages.map((m) => m.id) } } })).toBe(1000);
  const history = await env.client.workflow.getHandle(messageBatchWorkflowId(business, batchId)).fetchHistory();
  expect(JSON.stringify(history)).not.toContain('Campaign text');
}, 120_000);
