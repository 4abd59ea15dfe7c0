import { expectProblem } from '../../support/helpers';
import { startStackFor, type TestStack } from '../../support/stack';

/**
 * The caller's campaigns: `GET /messages/batches` lists them newest first, a page at a time, each with
 * its counts (never another user's), and is no message id; a canceled batch is finished at its cancel.
 */
let stack: TestStack;
let alice: string;
let bob: string;

beforeAll(async () => {
  ({ stack, token: alice } = await startStackFor('alice'));
  bob = stack.token('bob');
});
afterAll(() => stack.stop());

const later = (text: string, token = alice) =>
  stack.api('POST', '/messages/batch', { token, body: { message_type: 'text', text_message: text, delay: '1h', recipients: [{ client_phone: '+14155550111' }, { client_phone: '+14155550112' }] } });

test('a batch canceled before it is due shows finished_at in the cancel\'s answer and after', async () => {
  const res = await later('Canceled campaign');
  expect(res.status).toBe(202);
  const canceled = await stack.api('POST', `/messages/batch/${res.body.batch_id}/cancel`, { token: alice });
  expect(canceled.status).toBe(200);
  expect(canceled.body.counts).toEqual(expect.objectContaining({ scheduled: 0, canceled: 2 }));
  expect(canceled.body.finished_at).toEqual(expect.any(String));
  expect(Date.parse(canceled.body.finished_at)).toBeGreaterThanOrEqual(Date.parse(canceled.body.created_at));
  const read = await stack.api('GET', `/messages/batch/${res.body.batch_id}`, { token: alice });
  expect(read.body.finished_at).toBe(canceled.body.finished_at);
});

test('GET /messages/batches lists the caller\'s batches newest first, paged, with their counts; never another user\'s', async () => {
  const ids: string[] = [];
  for (const text of ['One', 'Two', 'Three']) ids.push((await later(text)).body.batch_id);
  const bobs = (await later('Bob\'s', bob)).body.batch_id;

  const first = await stack.api('GET', '/messages/batches?limit=2', { token: alice });
  expect(first.status).toBe(200);
  expect(first.body.batches.map((b: any) => b._id)).toEqual([ids[2], ids[1]]);
  expect(first.body.batches[0]).toEqual(expect.objectContaining({ accepted: 2, total: 2, counts: expect.objectContaining({ scheduled: 2 }), finished_at: null }));
  expect(first.body.next_cursor).toEqual(expect.any(String));

  const seen: string[] = first.body.batches.map((b: any) => b._id);
  let cursor = first.body.next_cursor;
  while (cursor) {
    const page = await stack.api('GET', `/messages/batches?limit=2&cursor=${encodeURIComponent(cursor)}`, { token: alice });
    expect(page.status).toBe(200);
    seen.push(...page.body.batches.map((b: any) => b._id));
    cursor = page.body.next_cursor;
  }
  expect(seen.slice(0, 3)).toEqual([ids[2], ids[1], ids[0]]);
  expect(seen).not.toContain(bobs);
  expect(new Set(seen).size).toBe(seen.length);

  expect((await stack.api('GET', '/messages/batches', { token: bob })).body.batches.map((b: any) => b._id)).toEqual([bobs]);
  expectProblem(await stack.api('GET', '/messages/batches?limit=101', { token: alice }), 400, 'Invalid limit: must be a whole number from 1 to 100');
  expectProblem(await stack.api('GET', '/messages/batches?cursor=x', { token: alice }), 400, 'Invalid cursor: pass next_cursor from the previous page');
});
