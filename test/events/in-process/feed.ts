import { expectProblem } from '../../support/helpers';
import { apiClient } from '../../support/http';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';

/* The feed (`GET /events`) and the subscriptions' own rules: paging, filters, and who sees what. */

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

async function newUser() {
  const token = stack.token(uniqueName('user'));
  for (const _id of ['c1', 'c2']) expect((await stack.api('POST', '/clients', { token, body: { _id, phone: '+1 415 555 0100' } })).status).toBe(201);
  return token;
}

const later = (client: string) => ({ message_type: 'text', client, text_message: 'Later', delay: 'PT1H' });

async function sendLater(token: string, client: string): Promise<string> {
  const res = await stack.api('POST', '/messages', { token, body: later(client) });
  expect(res.status).toBe(202);
  return res.body._id;
}

test('the feed pages through the caller\'s events in commit order, and a poller keeps its cursor for what comes next', async () => {
  const token = await newUser();
  const ids = [];
  for (const client of ['c1', 'c2', 'c1', 'c2', 'c1']) ids.push(await sendLater(token, client));
  expect((await stack.api('POST', `/messages/${ids[1]}/cancel`, { token })).status).toBe(200);
  const expected = [...ids.map((id) => `message.scheduled ${id}`), `message.canceled ${ids[1]}`];

  const seen: string[] = [];
  let after: string | undefined;
  for (let page = 0; page < 3; page++) {
    const res = await stack.api('GET', `/events?limit=2${after ? `&after=${after}` : ''}`, { token });
    expect(res.status).toBe(200);
    expect(res.body.events).toHaveLength(2);
    expect(res.body.has_more).toBe(page < 2);
    seen.push(...res.body.events.map((e: any) => `${e.type} ${e.data._id}`));
    after = res.body.next_cursor;
  }
  expect(seen).toEqual(expected);

  const caughtUp = await stack.api('GET', `/events?after=${after}`, { token });
  expect(caughtUp.body).toEqual({ events: [], next_cursor: after, has_more: false });
  const next = await sendLater(token, 'c2');
  const polled = await stack.api('GET', `/events?after=${after}`, { token });
  expect(polled.body.events.map((e: any) => `${e.type} ${e.data._id}`)).toEqual([`message.scheduled ${next}`]);
  expect(polled.body.next_cursor).not.toBe(after);
});

test('a cursor is opaque: it shows no sequence number, and another user or business cannot use it', async () => {
  const token = await newUser();
  await sendLater(token, 'c1');
  await sendLater(token, 'c2');
  const page = await stack.api('GET', '/events?limit=1', { token });
  const cursor: string = page.body.next_cursor;
  const [{ seq }] = await stack.prisma.event.findMany({ where: { id: page.body.events[0].id }, select: { seq: true } });
  const bytes = Buffer.from(cursor, 'base64url');
  const seqBytes = Buffer.alloc(8);
  seqBytes.writeBigUInt64BE(seq);
  expect(bytes.toString('utf8')).not.toMatch(new RegExp(`^e?0*${seq}$`));
  expect(bytes.includes(seqBytes)).toBe(false);
  // The same position sealed again reads differently: nothing to compare between cursors either.
  expect((await stack.api('GET', '/events?limit=1', { token })).body.next_cursor).not.toBe(cursor);

  expect((await stack.api('GET', `/events?after=${cursor}`, { token })).body.events).toHaveLength(1);
  const stranger = await newUser();
  expectProblem(await stack.api('GET', `/events?after=${cursor}`, { token: stranger }), 400, 'Invalid after: pass next_cursor from a previous page');
  const sameUserOtherBusiness = await fetch(`${stack.baseUrl.replace(stack.business, `${stack.business}-other`)}/events?after=${cursor}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(sameUserOtherBusiness.status).toBe(400);
  const tampered = Buffer.from(bytes);
  tampered[20] ^= 1;
  expectProblem(await stack.api('GET', `/events?after=${tampered.toString('base64url')}`, { token }), 400, 'Invalid after: pass next_cursor from a previous page');
});

test('a cursor whose number overflows is a 400 Invalid after, not a database error; a readable cursor of before still reads on', async () => {
  const token = await newUser();
  const overflowing = Buffer.from('e99999999999999999999').toString('base64url');
  expectProblem(await stack.api('GET', `/events?after=${overflowing}`, { token }), 400, 'Invalid after: pass next_cursor from a previous page');
  const beyondBigint = Buffer.from('e9223372036854775808').toString('base64url');
  expectProblem(await stack.api('GET', `/events?after=${beyondBigint}`, { token }), 400, 'Invalid after: pass next_cursor from a previous page');

  await sendLater(token, 'c1');
  const [{ seq }] = await stack.prisma.event.findMany({ where: { business: stack.business }, orderBy: { seq: 'desc' }, take: 1, select: { seq: true } });
  await sendLater(token, 'c2');
  const legacy = Buffer.from(`e${seq}`).toString('base64url');
  const res = await stack.api('GET', `/events?after=${legacy}`, { token });
  expect(res.status).toBe(200);
  expect(res.body.events.map((e: any) => e.data.client)).toEqual(['c2']);
});

test('the feed filters by type (or a resource\'s every type) and by client', async () => {
  const token = await newUser();
  const [first, second] = [await sendLater(token, 'c1'), await sendLater(token, 'c2')];
  await stack.api('POST', `/messages/${second}/cancel`, { token });
  const types = async (query: string) => (await stack.api('GET', `/events?${query}`, { token })).body.events.map((e: any) => `${e.type} ${e.data._id}`);

  expect(await types('type=message.canceled')).toEqual([`message.canceled ${second}`]);
  expect(await types('type=message.*')).toHaveLength(3);
  expect(await types('type=assignment.*')).toEqual([]);
  expect(await types('client=c1')).toEqual([`message.scheduled ${first}`]);
  expect(await types('client=c2&type=message.scheduled')).toEqual([`message.scheduled ${second}`]);
  expect(await types('client=nobody')).toEqual([]);
  const empty = await stack.api('GET', '/events?client=nobody', { token });
  expect(empty.body).toEqual({ events: [], next_cursor: null, has_more: false });
});

test('another user\'s events and webhooks are invisible: the feed leaves them out, and their webhook is a 404', async () => {
  const owner = await newUser();
  const other = await newUser();
  await sendLater(owner, 'c1');
  const webhook = await stack.api('POST', '/webhooks', { token: owner, body: { url: 'https://example.com/hooks' } });
  expect(webhook.status).toBe(201);

  expect((await stack.api('GET', '/events', { token: other })).body.events).toEqual([]);
  expect((await stack.api('GET', '/events?client=c1', { token: other })).body.events).toEqual([]);
  expect((await stack.api('GET', '/webhooks', { token: other })).body).toEqual({ webhooks: [] });
  const id = webhook.body._id;
  for (const [method, path] of [['GET', `/webhooks/${id}`], ['DELETE', `/webhooks/${id}`], ['POST', `/webhooks/${id}/rotate-secret`], ['GET', `/webhooks/${id}/deliveries`]]) {
    expectProblem(await stack.api(method, path, { token: other }), 404, 'Webhook not found');
  }
  // Another business of the same user is another owner too.
  const elsewhere = await stack.api('GET', `//ext/v2/${stack.business}-other/webhooks/${id}`, { token: owner });
  expectProblem(elsewhere, 404, 'Webhook not found');
  expect((await stack.api('GET', `//ext/v2/${stack.business}-other/events`, { token: owner })).body.events).toEqual([]);
  // The owner's are all there.
  expect((await stack.api('GET', `/webhooks/${id}`, { token: owner })).status).toBe(200);
  expect((await stack.api('GET', '/events', { token: owner })).body.events).toHaveLength(1);
  expectProblem(await stack.api('GET', '/webhooks/not-an-id', { token: owner }), 404, 'Webhook not found');
});

test('a webhook is created with a Standard Webhooks secret shown once, listed without it, and deleted', async () => {
  const token = await newUser();
  const created = await stack.api('POST', '/webhooks', { token, body: { url: 'https://example.com/hooks', events: ['assignment.*', 'message.sent', 'message.sent'], description: 'CRM sync' } });
  expect(created.status).toBe(201);
  expect(created.headers.get('location')).toBe(`/ext/v2/${stack.business}/webhooks/${created.body._id}`);
  expect(created.body).toMatchObject({ url: 'https://example.com/hooks', events: ['assignment.*', 'message.sent'], description: 'CRM sync', disabled_at: null });
  expect(Buffer.from(created.body.secret.replace(/^whsec_/, ''), 'base64')).toHaveLength(32);

  const all = await stack.api('POST', '/webhooks', { token, body: { url: 'http://127.0.0.1:9/hooks' } });
  expect(all.body.events).toEqual(['*']);
  const listed = (await stack.api('GET', '/webhooks', { token })).body.webhooks;
  expect(listed.map((w: any) => w._id)).toEqual([created.body._id, all.body._id]);
  for (const webhook of listed) expect(webhook).not.toHaveProperty('secret');

  expect((await stack.api('DELETE', `/webhooks/${created.body._id}`, { token })).status).toBe(204);
  expect((await stack.api('GET', '/webhooks', { token })).body.webhooks.map((w: any) => w._id)).toEqual([all.body._id]);
  expectProblem(await stack.api('DELETE', `/webhooks/${created.body._id}`, { token }), 404, 'Webhook not found');
});

test('bad webhook input is a 400 that names the field, and creates nothing', async () => {
  const token = await newUser();
  const cases: [unknown, string][] = [
    [{}, 'Invalid url: must be an http or https URL'],
    [{ url: 'ftp://example.com/hooks' }, 'Invalid url: must be an http or https URL'],
    [{ url: 'not a url' }, 'Invalid url: must be an http or https URL'],
    [{ url: `https://example.com/${'x'.repeat(2048)}` }, 'Invalid url: must be at most 2048 characters'],
    [{ url: 'https://example.com', events: ['message.exploded'] }, expect.stringMatching(/^Invalid events\.0: must be one of assignment\.created, .*, \*$/) as unknown as string],
    [{ url: 'https://example.com', events: 'message.sent' }, expect.stringMatching(/^Invalid events: must be an array of event types/) as unknown as string],
    [{ url: 'https://example.com', events: [] }, 'Invalid events: must name at least one event type, or be left out for all of them'],
    [{ url: 'https://example.com', description: 'x'.repeat(501) }, 'Invalid description: must be at most 500 characters'],
    [{ url: 'https://example.com', description: 42 }, 'Invalid description: must be a string'],
    [['https://example.com'], expect.stringMatching(/^Invalid request body: /) as unknown as string],
  ];
  for (const [body, detail] of cases) {
    const res = await stack.api('POST', '/webhooks', { token, body });
    expect({ body, status: res.status, detail: res.body.detail }).toEqual({ body, status: 400, detail });
  }
  expect((await stack.api('GET', '/webhooks', { token })).body).toEqual({ webhooks: [] });
});

test('bad feed and deliveries queries are 400s', async () => {
  const token = await newUser();
  expectProblem(await stack.api('GET', '/events?after=garbage', { token }), 400, 'Invalid after: pass next_cursor from a previous page');
  expectProblem(await stack.api('GET', '/events?limit=0', { token }), 400, /^Invalid limit: /);
  expectProblem(await stack.api('GET', '/events?limit=101', { token }), 400, /^Invalid limit: /);
  expectProblem(await stack.api('GET', '/events?type=message', { token }), 400, /^Invalid type: /);
  const webhook = await stack.api('POST', '/webhooks', { token, body: { url: 'https://example.com/hooks' } });
  expectProblem(await stack.api('GET', `/webhooks/${webhook.body._id}/deliveries?limit=0`, { token }), 400, 'Invalid limit: must be a whole number from 1 to 100');
  expect((await stack.api('GET', `/webhooks/${webhook.body._id}/deliveries`, { token })).body).toEqual({ deliveries: [] });
});

test('at most 20 webhooks per user, however many businesses (or spellings of one) it spreads them over, even sent at once', async () => {
  const user = uniqueName('user');
  const token = stack.token(user);
  const origin = new URL(stack.baseUrl).origin;
  const inBusiness = (business: string) => apiClient(origin, business);
  const create = (business: string, i: number) => inBusiness(business)('POST', '/webhooks', { token, body: { url: `https://example.com/${business}/${i}` } });
  const acme = uniqueName('Acme');
  for (const [business, count] of [[acme, 10], [acme.toUpperCase(), 5], [uniqueName('other'), 4]] as const) {
    for (let i = 0; i < count; i++) expect((await create(business, i)).status).toBe(201);
  }
  const atOnce = await Promise.all(Array.from({ length: 5 }, (_, i) => create(uniqueName('fresh'), i)));
  expect(atOnce.map((res) => res.status).sort()).toEqual([201, 409, 409, 409, 409]);
  const refused = atOnce.find((res) => res.status === 409)!;
  expectProblem(refused, 409, 'At most 20 webhooks per user, across its businesses: delete one first');
  expectProblem(await create(acme, 99), 409, 'At most 20 webhooks per user, across its businesses: delete one first');
  // Another user of the same businesses has its own 20.
  expect((await inBusiness(acme)('POST', '/webhooks', { token: stack.token(uniqueName('user')), body: { url: 'https://example.com/other-user' } })).status).toBe(201);
});
