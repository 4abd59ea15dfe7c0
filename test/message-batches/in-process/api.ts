import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver';
import { createWebhookProvider } from '../../../src/activities/providers/webhook';
import { messageBatchWorkflowId } from '../../../src/domain';
import { eventually, startTestStack, type TestStack } from '../../support/stack';
import { expectProblem } from '../../support/helpers';

/** POST /messages/batch through real HTTP, PostgreSQL and Temporal, sent by the batch's workflow to a real receiver. */
let stack: TestStack;
let receiver: WebhookReceiver;
let alice: string;
let bob: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stack = await startTestStack({ provider: createWebhookProvider({ url: receiver.url }) });
  alice = stack.token('alice');
  bob = stack.token('bob');
  await stack.api('POST', '/clients', { token: alice, body: { _id: 'ada', name: 'Ada', phone: '+14155550101' } });
  await stack.api('POST', '/clients', { token: alice, body: { _id: 'nophone', name: 'Nobody' } });
  await stack.api('POST', '/clients', { token: bob, body: { _id: 'bobs', name: 'Bob', phone: '+14155550102' } });
});
afterAll(async () => {
  await stack.stop();
  await receiver.close();
});

const batch = (body: unknown, token = alice, headers: Record<string, string> = {}) => stack.api('POST', '/messages/batch', { token, body, headers });
const deliveredTo = (id: string) => receiver.deliveriesFor(id).length;

/** A batch asked again after a 503's Retry-After, under one Idempotency-Key, as a client does on a loaded machine. */
async function batchUntilAnswered(body: unknown) {
  const headers = { 'Idempotency-Key': `mixed-${Date.now()}` };
  for (let attempt = 1; ; attempt++) {
    const res = await batch(body, alice, headers);
    if (res.status !== 503 || attempt === 3) return res;
    await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? 1) * 1000));
  }
}

test('mixed valid and invalid recipients: one result each in request order, the single send texts, the valid ones sent once', async () => {
  const res = await batchUntilAnswered({
    message_type: 'text',
    text_message: 'Hello {{client_name}}',
    recipients: [
      { client: 'ada' },
      { client_phone: '4155550123' },
      { client: 'bobs' },
      { client: 'nophone' },
      { client_phone: '+14155550103', client_name: 'Grace' },
      { client_phone: '+14155550104' },
      { client_phone: '+14155550105', text_message: 'Plain text' },
      {},
    ],
  });
  expect(res.status).toBe(202);
  expect(res.headers.get('location')).toBe(`/ext/v2/${stack.business}/messages/batch/${res.body.batch_id}`);
  const { results } = res.body;
  expect(results.map((r: any) => [r.index, r.status, r.error?.detail ?? null])).toEqual([
    [0, 'scheduled', null],
    [1, 'rejected', 'Invalid client_phone: must be an E.164 phone number such as +14155550123'],
    [2, 'rejected', 'Client not found'],
    [3, 'rejected', 'Client nophone has no phone number: send client_phone'],
    [4, 'scheduled', null],
    [5, 'rejected', 'Missing client_name: text_message uses {{client_name}}'],
    [6, 'scheduled', null],
    [7, 'rejected', 'Missing client or client_phone'],
  ]);
  expect(results[2].error).toEqual({ type: '/problems/not-found', status: 404, detail: 'Client not found' });
  const ids = [results[0]._id, results[4]._id, results[6]._id];
  await eventually(async () => ids.every((id) => deliveredTo(id) === 1) || undefined, 30_000);
  const texts = ids.map((id) => receiver.deliveriesFor(id)[0].body.text);
  expect(texts).toEqual(['Hello Ada', 'Hello Grace', 'Plain text']);
  for (const id of ids) {
    const message = await stack.api('GET', `/messages/${id}`, { token: alice });
    expect(message.body).toEqual(expect.objectContaining({ _id: id, batch_id: res.body.batch_id, workflow_id: messageBatchWorkflowId(stack.business, res.body.batch_id) }));
  }
  const view = await eventually(async () => {
    const b = await stack.api('GET', `/messages/batch/${res.body.batch_id}`, { token: alice });
    return b.body.finished_at ? b : undefined;
  });
  expect(view.body).toEqual(expect.objectContaining({ _id: res.body.batch_id, total: 8, accepted: 3 }));
  expect(view.body.counts).toEqual(expect.objectContaining({ sent: 3, scheduled: 0, sending: 0 }));
  // Every recipient went out once: nothing twice after the run finished.
  expect(ids.map(deliveredTo)).toEqual([1, 1, 1]);
});

test('a phone repeated in one batch is texted once: each repeat, however written, is rejected naming the earlier recipient', async () => {
  const res = await batch({
    message_type: 'text',
    text_message: 'Our sale starts now',
    recipients: [
      { client: 'ada' },
      { client_phone: '+1 (415) 555-0101' },
      { client_phone: '+14155550131' },
      { client_phone: 'bad' },
      { client_phone: '+1 415 555 0131', text_message: 'Another text, same phone' },
      { client: 'ada', client_name: 'Ada again' },
    ],
  });
  expect(res.status).toBe(202);
  const { results } = res.body;
  expect(results.map((r: any) => [r.index, r.status, r.error?.detail ?? null])).toEqual([
    [0, 'scheduled', null],
    [1, 'rejected', 'Duplicate recipient: same phone as recipient 0'],
    [2, 'scheduled', null],
    [3, 'rejected', 'Invalid client_phone: must be an E.164 phone number such as +14155550123'],
    [4, 'rejected', 'Duplicate recipient: same phone as recipient 2'],
    [5, 'rejected', 'Duplicate recipient: same phone as recipient 0'],
  ]);
  expect(results[1]).toEqual({ index: 1, status: 'rejected', error: { type: '/problems/invalid-request', status: 400, detail: 'Duplicate recipient: same phone as recipient 0' } });
  const view = await eventually(async () => {
    const b = await stack.api('GET', `/messages/batch/${res.body.batch_id}`, { token: alice });
    return b.body.finished_at ? b : undefined;
  });
  expect(view.body).toEqual(expect.objectContaining({ total: 6, accepted: 2 }));
  expect(view.body.counts).toEqual(expect.objectContaining({ sent: 2 }));
  const batchIds = new Set([results[0]._id, results[2]._id]);
  const sentTo = receiver.requests.filter((r) => batchIds.has(r.body?.id) && r.status >= 200 && r.status < 300).map((r) => r.body.to);
  expect(sentTo.sort()).toEqual(['+14155550101', '+14155550131']);
});

test('no valid recipient is a 400 with every problem listed, and nothing is stored', async () => {
  const before = await stack.prisma.messageBatch.count();
  const res = await batch({ message_type: 'text', text_message: 'Hi', recipients: [{ client_phone: 'nope' }, { client: 'bobs' }] });
  expect(res.status).toBe(400);
  expect(res.body).toEqual(expect.objectContaining({ type: '/problems/invalid-request', detail: 'No recipient could be accepted: see results', batch_id: null }));
  expect(res.body.results.map((r: any) => r.error.detail)).toEqual(['Invalid client_phone: must be an E.164 phone number such as +14155550123', 'Client not found']);
  expect(await stack.prisma.messageBatch.count()).toBe(before);
});

test.each<[string, unknown, string]>([
  ['message_type', { text_message: 'Hi', recipients: [{ client_phone: '+14155550101' }] }, 'Invalid message_type: must be "text"'],
  ['no recipients', { message_type: 'text', text_message: 'Hi' }, 'Invalid recipients: must be an array of 1 to 1000 objects'],
  ['empty recipients', { message_type: 'text', text_message: 'Hi', recipients: [] }, 'Invalid recipients: must be an array of 1 to 1000 objects'],
  ['1001 recipients', { message_type: 'text', text_message: 'Hi', recipients: Array.from({ length: 1001 }, () => ({ client_phone: '+14155550101' })) }, 'Invalid recipients: must be an array of 1 to 1000 objects'],
  ['a recipient not an object', { message_type: 'text', text_message: 'Hi', recipients: ['+14155550101'] }, 'Invalid recipients: must be an array of 1 to 1000 objects'],
])('the whole request refused: %s', async (_name, body, detail) => {
  expectProblem(await batch(body), 400, detail);
});

test('1,000 recipients: 202 with 1,000 ids in request order, each readable and cancellable on its own, then the rest canceled with the batch', async () => {
  const recipients = Array.from({ length: 1000 }, (_, i) => ({ client_phone: `+1415555${String(i).padStart(4, '0')}`, client_name: `R${i}` }));
  const res = await batch({ message_type: 'text', text_message: 'Hi {{client_name}}', delay: '1h', recipients });
  expect(res.status).toBe(202);
  expect(res.body.results).toHaveLength(1000);
  expect(res.body.results.map((r: any) => r.index)).toEqual(recipients.map((_, i) => i));
  expect(new Set(res.body.results.map((r: any) => r._id)).size).toBe(1000);
  const one = res.body.results[417]._id;
  const read = await stack.api('GET', `/messages/${one}`, { token: alice });
  expect(read.body).toEqual(expect.objectContaining({ status: 'scheduled', client_phone: '+14155550417', text_message: 'Hi R417' }));
  const canceled = await stack.api('POST', `/messages/${one}/cancel`, { token: alice });
  expect(canceled.body.status).toBe('canceled');
  expect((await stack.api('GET', `/messages/batch/${res.body.batch_id}`, { token: alice })).body.counts).toEqual(expect.objectContaining({ scheduled: 999, canceled: 1 }));

  // Another owner finds nothing there.
  expectProblem(await stack.api('GET', `/messages/batch/${res.body.batch_id}`, { token: bob }), 404, 'Batch not found');
  expectProblem(await stack.api('POST', `/messages/batch/${res.body.batch_id}/cancel`, { token: bob }), 404, 'Batch not found');

  const all = await stack.api('POST', `/messages/batch/${res.body.batch_id}/cancel`, { token: alice });
  expect(all.status).toBe(200);
  expect(all.body.counts).toEqual(expect.objectContaining({ scheduled: 0, canceled: 1000 }));
  // The run woke, found nothing left, and ended without sending.
  const handle = stack.temporal.workflow.getHandle(messageBatchWorkflowId(stack.business, res.body.batch_id));
  expect(await handle.result()).toEqual(expect.objectContaining({ sent: 0 }));
  expect(res.body.results.filter((r: any) => deliveredTo(r._id) > 0)).toEqual([]);
});

test('a repeat with the same Idempotency-Key answers the same and stores nothing twice; another request under it is refused', async () => {
  const body = { message_type: 'text', text_message: 'Once', delay: '1h', recipients: [{ client: 'ada' }, { client_phone: 'bad' }] };
  const headers = { 'Idempotency-Key': `batch-${Date.now()}` };
  const first = await batch(body, alice, headers);
  const again = await batch(body, alice, headers);
  expect(first.status).toBe(202);
  expect(again.status).toBe(202);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body).toEqual(first.body);
  expect(await stack.prisma.message.count({ where: { batchId: first.body.batch_id } })).toBe(1);
  const other = await batch({ ...body, text_message: 'Twice' }, alice, headers);
  expectProblem(other, 422, 'Idempotency-Key was already used with a different request');
  await stack.api('POST', `/messages/batch/${first.body.batch_id}/cancel`, { token: alice });
});

test('the batch run carries ids and times only: no phone, name or text in its input, summary or search attributes', async () => {
  const res = await batch({ message_type: 'text', text_message: 'Secret words', delay: '1h', recipients: [{ client_phone: '+14155550177', client_name: 'Hidden Name' }] });
  const handle = stack.temporal.workflow.getHandle(messageBatchWorkflowId(stack.business, res.body.batch_id));
  const history = JSON.stringify(await handle.fetchHistory());
  const described = JSON.stringify(await handle.describe());
  for (const personal of ['+14155550177', 'Hidden Name', 'Secret words']) {
    expect(history).not.toContain(personal);
    expect(described).not.toContain(personal);
  }
  await stack.api('POST', `/messages/batch/${res.body.batch_id}/cancel`, { token: alice });
});

test('a campaign body may reach 5 MB (1,000 recipients with their own texts); beyond, a 413 naming the limit', async () => {
  const own = 'x'.repeat(300);
  const recipients = Array.from({ length: 1000 }, (_, i) => ({ client_phone: `+1415556${String(i).padStart(4, '0')}`, text_message: `${own} ${i}` }));
  const res = await batch({ message_type: 'text', delay: '1h', recipients });
  expect(res.status).toBe(202);
  expect(JSON.stringify(recipients).length).toBeGreaterThan(100 * 1024);
  await stack.api('POST', `/messages/batch/${res.body.batch_id}/cancel`, { token: alice });
  const huge = Array.from({ length: 1000 }, () => ({ client_phone: '+14155550101', text_message: 'y'.repeat(6000) }));
  expectProblem(await batch({ message_type: 'text', recipients: huge }), 413, 'Request body is larger than 5 MB');
});
