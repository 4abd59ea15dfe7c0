import { startTestStack, uniqueName, type TestStack } from '../../support/stack';

let stack: TestStack;
let alice: string;
let bob: string;
const PHONE = '+14155550123';

beforeAll(async () => {
  stack = await startTestStack();
  alice = stack.token('alice');
  bob = stack.token('bob');
  await stack.api('POST', '/clients', { token: alice, body: { _id: 'c-1', phone: PHONE } });
  await stack.api('POST', '/clients', { token: bob, body: { _id: 'c-1', phone: PHONE } });
});
afterAll(() => stack.stop());

async function send(token: string, body: Record<string, unknown>, business = stack.business) {
  const res = await stack.api('POST', `//ext/v2/${business}/messages`, { token, body: { message_type: 'text', delay: '1h', ...body } });
  expect(res.status).toBe(202);
  return res.body._id as string;
}

const list = (query = '', token = alice) => stack.api('GET', `/messages${query}`, { token });

test('lists only the caller\'s messages in this business, newest first, with their lifecycle', async () => {
  const first = await send(alice, { client: 'c-1', text_message: 'first' });
  const second = await send(alice, { client_phone: PHONE, text_message: 'second' });
  await send(bob, { client: 'c-1', text_message: 'bob' });
  await send(alice, { client_phone: PHONE, text_message: 'elsewhere' }, uniqueName('other-biz'));

  const res = await list();
  expect(res.status).toBe(200);
  const ids = res.body.messages.map((m: { _id: string }) => m._id);
  expect(ids.indexOf(second)).toBeLessThan(ids.indexOf(first));
  expect(res.body.messages.every((m: { text_message: string }) => !['bob', 'elsewhere'].includes(m.text_message))).toBe(true);
  expect(res.body.messages.find((m: { _id: string }) => m._id === first)).toMatchObject({
    _id: first,
    status: 'scheduled',
    client: 'c-1',
    client_phone: PHONE,
    text_message: 'first',
    workflow_id: `message/${stack.business}/${first}`,
  });
  expect(res.body.next_cursor).toBeNull();
});

test('filters by client and by status', async () => {
  const forClient = await send(alice, { client: 'c-1', text_message: 'for the client' });
  const toCancel = await send(alice, { client_phone: PHONE, text_message: 'to cancel' });
  expect((await stack.api('POST', `/messages/${toCancel}/cancel`, { token: alice })).status).toBe(200);

  const byClient = await list('?client=c-1');
  expect(byClient.body.messages.map((m: { _id: string }) => m._id)).toContain(forClient);
  expect(byClient.body.messages.every((m: { client: string }) => m.client === 'c-1')).toBe(true);

  const canceled = await list('?status=canceled');
  expect(canceled.body.messages.map((m: { _id: string }) => m._id)).toEqual([toCancel]);

  expect((await list('?client=no-such-client')).body.messages).toEqual([]);
});

test('pages through every message exactly once with next_cursor', async () => {
  const all = (await list('?limit=100')).body.messages.map((m: { _id: string }) => m._id);
  expect(all.length).toBeGreaterThanOrEqual(4);
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: { messages: { _id: string }[]; next_cursor: string | null } } = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    expect(res.body.messages.length).toBeLessThanOrEqual(2);
    seen.push(...res.body.messages.map((m) => m._id));
    cursor = res.body.next_cursor;
  } while (cursor);
  expect(seen).toEqual(all);
});

test.each([
  ['?limit=0', 'Invalid limit'],
  ['?limit=101', 'Invalid limit'],
  ['?limit=ten', 'Invalid limit'],
  ['?status=exploded', 'Invalid status'],
  ['?status=sent&status=failed', 'Invalid status'],
  ['?client=a/b', 'Invalid client'],
  ['?cursor=not-a-cursor', 'Invalid cursor: pass next_cursor from the previous page'],
])('%s is a 400 problem', async (query, detail) => {
  const res = await list(query);
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body.detail).toContain(detail);
});

test('listing needs a token', async () => {
  expect((await stack.api('GET', '/messages')).status).toBe(401);
});
