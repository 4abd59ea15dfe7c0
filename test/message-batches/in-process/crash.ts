import { createWebhookProvider } from '../../../src/activities/providers/webhook';
import type { RunningProcess } from '../../support/process';
import { secondsAheadOfRate } from '../../support/pacing';
import { eventually, startTestStack, type TestStack } from '../../support/stack';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver';
import { startWorkerProcess } from '../../support/worker-process';

/**
 * A batch sent by a worker process that is killed with SIGKILL mid-batch, and a batch paced to a rate:
 * what a CRM notices is every message sent, none handed over twice, and no burst above the carrier's limit.
 */
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

const recipients = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ client_phone: `+1${prefix}${String(i).padStart(4, '0')}` }));

const workerProcess = (stack: TestStack, env: Record<string, string> = {}): Promise<RunningProcess> =>
  startWorkerProcess(stack, { MESSAGE_PROVIDER: 'webhook', MESSAGE_WEBHOOK_URL: receiver.url, ...env });

test('kill -9 of the worker mid-batch: every message is sent, and a message handed over again carries the same Idempotency-Key', async () => {
  const stack = await startTestStack({ provider: createWebhookProvider({ url: receiver.url }) });
  try {
    await stack.stopWorker();
    // A receiver that takes a moment per message, so that the kill lands in the middle of the batch.
    receiver.respond = (request) => ({ status: 200, body: JSON.stringify({ id: `rcv-${request.body?.id}` }), delayMs: 15 });
    const first = await workerProcess(stack, { MESSAGE_BATCH_CONCURRENCY: '2', MESSAGE_BATCH_CHUNK_SIZE: '50' });
    const token = stack.token('alice');
    const res = await stack.api('POST', '/messages/batch', { token, body: { message_type: 'text', text_message: 'Flash sale', recipients: recipients(160, '41577') } });
    expect(res.status).toBe(202);
    const ids: string[] = res.body.results.map((r: any) => r._id);
    const received = () => new Set(receiver.requests.filter((r) => ids.includes(r.body?.id)).map((r) => r.body.id)).size;
    await eventually(async () => received() >= 40 || undefined, 60_000, 20);
    first.child.kill('SIGKILL');
    await first.exited;
    const atKill = received();
    expect(atKill).toBeLessThan(160);

    const second = await workerProcess(stack);
    try {
      const view = await eventually(async () => {
        const b = (await stack.api('GET', `/messages/batch/${res.body.batch_id}`, { token })).body;
        return b.finished_at ? b : undefined;
      }, 120_000);
      expect(view.counts).toEqual(expect.objectContaining({ sent: 160, sending: 0, scheduled: 0, failed: 0 }));
      for (const id of ids) {
        const requests = receiver.requestsFor(id);
        expect(requests.length).toBeGreaterThanOrEqual(1);
        // A repeat is only ever the same hand-over again: same key, same body (a receiver honouring the key delivers it once).
        expect(new Set(requests.map((r) => `${r.headers['idempotency-key']}|${r.rawBody}`)).size).toBe(1);
      }
      // Only what was in flight at the kill can be handed over twice: at most the chunks in flight (2 × 16 hand-overs).
      const repeated = ids.filter((id) => receiver.requestsFor(id).length > 1);
      expect(repeated.length).toBeLessThanOrEqual(32);
    } finally {
      await second.stop();
    }
  } finally {
    receiver.respond = (request) => ({ status: 200, body: JSON.stringify({ id: `rcv-${request.body?.id}` }) });
    await stack.stop();
  }
}, 240_000);

test('MESSAGE_SEND_RATE_PER_SECOND paces a batch: by the end of each whole second the carrier has received at most the rate a second', async () => {
  const stack = await startTestStack({ provider: createWebhookProvider({ url: receiver.url }), env: { MESSAGE_SEND_RATE_PER_SECOND: '10', MESSAGE_BATCH_CHUNK_SIZE: '7' } });
  try {
    const token = stack.token('alice');
    const postedAt = Date.now();
    const res = await stack.api('POST', '/messages/batch', { token, body: { message_type: 'text', text_message: 'Paced', recipients: recipients(20, '41588') } });
    const ids = new Set<string>(res.body.results.map((r: any) => r._id));
    await eventually(async () => {
      const b = (await stack.api('GET', `/messages/batch/${res.body.batch_id}`, { token })).body;
      return b.finished_at ? b : undefined;
    }, 60_000);
    const times = receiver.requests.filter((r) => ids.has(r.body?.id)).map((r) => r.receivedAt);
    expect(times).toHaveLength(20);
    expect(secondsAheadOfRate(times, postedAt, 10)).toEqual([]);
    // Paced, not merely late: 20 at 10 a second take at least 1.9 s from the post (unpaced, well under one).
    expect(Math.max(...times) - postedAt).toBeGreaterThanOrEqual(1900);
  } finally {
    await stack.stop();
  }
}, 120_000);
