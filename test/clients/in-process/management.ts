import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../support/stack';
import { expectProblem, waitForStatus } from '../../support/helpers';

/* GET /clients (paged, ?phone=, ?q=) and PATCH /clients/{_id}, for the calling user only. */

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const newUser = () => stack.token(`user-${randomUUID()}`);
const inBusiness = (business: string, path: string) => `//ext/v2/${business}${path}`;

async function createClients(token: string, clients: object[]) {
  for (const body of clients) expect((await stack.api('POST', '/clients', { token, body })).status).toBe(201);
}

describe('GET /clients', () => {
  test('pages through the caller\'s clients oldest first, with next_cursor until the last page', async () => {
    const token = newUser();
    const ids = Array.from({ length: 7 }, (_, i) => `c${i}`);
    await createClients(token, ids.map((_id) => ({ _id })));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await stack.api('GET', `/clients?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.clients.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.clients.map((c: { _id: string }) => c._id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(ids);
    expect(pages).toBe(3);
    const all = await stack.api('GET', '/clients', { token });
    expect(all.body).toEqual({ clients: expect.any(Array), next_cursor: null });
    expect(all.body.clients[0]).toEqual({ _id: 'c0', name: null, phone: null, timezone: null, created_at: expect.any(String) });
  });

  test('?phone= matches exactly (normalised like a stored phone); ?q= is a case-insensitive name prefix', async () => {
    const token = newUser();
    await createClients(token, [
      { _id: 'ada', name: 'Ada Lovelace', phone: '+14155550100' },
      { _id: 'adam', name: 'adam Smith', phone: '+14155550101' },
      { _id: 'grace', name: 'Grace Hopper', phone: '+14155550100' },
      { _id: 'pct', name: '100% Ada', phone: '+14155550102' },
      { _id: 'under', name: 'A_a', phone: '+14155550103' },
    ]);
    const ids = async (query: string) => (await stack.api('GET', `/clients?${query}`, { token })).body.clients.map((c: { _id: string }) => c._id);
    expect(await ids(`phone=${encodeURIComponent('+1 415 555 0100')}`)).toEqual(['ada', 'grace']);
    expect(await ids(`phone=${encodeURIComponent('+14155550199')}`)).toEqual([]);
    expect(await ids('q=ADA')).toEqual(['ada', 'adam']);
    expect(await ids('q=ada%20l')).toEqual(['ada']);
    // The wildcards of SQL are plain characters here.
    expect(await ids('q=%25')).toEqual([]);
    expect(await ids('q=A_')).toEqual(['under']);
    expect(await ids(`q=${encodeURIComponent('100%')}`)).toEqual(['pct']);
    expect(await ids(`q=${encodeURIComponent('\\')}`)).toEqual([]);
    expect(await ids(`q=ad&phone=${encodeURIComponent('+14155550101')}`)).toEqual(['adam']);
  });

  test('bad parameters are 400 with the parameter named', async () => {
    const token = newUser();
    expectProblem(await stack.api('GET', '/clients?phone=12345', { token }), 400, 'Invalid phone: must be an E.164 phone number such as +14155550123');
    expectProblem(await stack.api('GET', '/clients?q=', { token }), 400, 'Invalid q: must not be empty');
    expectProblem(await stack.api('GET', '/clients?limit=0', { token }), 400, 'Invalid limit: Too small: expected number to be >=1');
    expectProblem(await stack.api('GET', '/clients?limit=101', { token }), 400, 'Invalid limit: Too big: expected number to be <=100');
    expectProblem(await stack.api('GET', '/clients?cursor=nonsense', { token }), 400, 'Invalid cursor: pass next_cursor from the previous page');
  });

  test('lists only the caller\'s clients in this business', async () => {
    const alice = newUser();
    const bob = newUser();
    const otherBusiness = `${stack.business}-other`;
    await createClients(alice, [{ _id: 'mine', phone: '+14155550111' }]);
    await createClients(bob, [{ _id: 'bobs', phone: '+14155550111' }]);
    expect((await stack.api('POST', inBusiness(otherBusiness, '/clients'), { token: alice, body: { _id: 'elsewhere', phone: '+14155550111' } })).status).toBe(201);
    const listed = await stack.api('GET', `/clients?phone=${encodeURIComponent('+14155550111')}`, { token: alice });
    expect(listed.body.clients.map((c: { _id: string }) => c._id)).toEqual(['mine']);
    expect((await stack.api('GET', '/clients', { token: bob })).body.clients.map((c: { _id: string }) => c._id)).toEqual(['bobs']);
  });
});

describe('PATCH /clients/{_id}', () => {
  test('merges the fields given, clears those given as null, keeps the absent ones', async () => {
    const token = newUser();
    await createClients(token, [{ _id: 'c1', name: 'Ada', phone: '+14155550100', timezone: 'America/New_York' }]);
    const renamed = await stack.api('PATCH', '/clients/c1', { token, body: { name: 'Ada King', phone: '+44 20 7946 0958' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ _id: 'c1', name: 'Ada King', phone: '+442079460958', timezone: 'America/New_York', created_at: expect.any(String) });
    const cleared = await stack.api('PATCH', '/clients/c1', { token, body: { timezone: null } });
    expect(cleared.body).toEqual({ ...renamed.body, timezone: null });
    const unchanged = await stack.api('PATCH', '/clients/c1', { token, body: { _id: 'c1' } });
    expect(unchanged.body).toEqual(cleared.body);
    expect((await stack.api('GET', '/clients/c1', { token })).body).toEqual(cleared.body);
    // application/merge-patch+json is JSON too.
    const merged = await stack.api('PATCH', '/clients/c1', { token, rawBody: JSON.stringify({ name: null }), headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(merged.status).toBe(200);
    expect(merged.body.name).toBeNull();
  });

  test('a message accepted before the change keeps its phone; one after takes the new phone', async () => {
    const token = newUser();
    await createClients(token, [{ _id: 'c1', name: 'Ada', phone: '+14155550100' }]);
    const before = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Hi', delay: '1h' } });
    expect(before.status).toBe(202);
    await stack.api('PATCH', '/clients/c1', { token, body: { phone: '+14155550177', name: 'Ada K' } });
    const after = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Hi again' } });
    await waitForStatus(stack.api, token, after.body._id, 'sent');
    const old = await stack.api('GET', `/messages/${before.body._id}`, { token });
    expect([old.body.client_phone, old.body.client_name]).toEqual(['+14155550100', 'Ada']);
    const fresh = await stack.api('GET', `/messages/${after.body._id}`, { token });
    expect([fresh.body.client_phone, fresh.body.client_name]).toEqual(['+14155550177', 'Ada K']);
    await stack.api('POST', `/messages/${before.body._id}/cancel`, { token });
  });

  test.each([
    [{ phone: '12345' }, 'Invalid phone: must be an E.164 phone number such as +14155550123'],
    [{ name: 'x'.repeat(201) }, 'Invalid name: Too big: expected string to have <=200 characters'],
    [{ name: 42 }, 'Invalid name: Invalid input: expected string, received number'],
    [{ timezone: 'Mars/Olympus' }, 'Invalid timezone: must be an IANA time zone such as America/New_York'],
    [{ timezone: '+05:30' }, 'Invalid timezone: must be an IANA time zone such as America/New_York'],
    [{ _id: 'c2' }, "Invalid _id: a client's id cannot be changed"],
    [null, 'Invalid request body: Invalid input: expected object, received null'],
    [[], 'Invalid request body: Invalid input: expected object, received array'],
  ])('refuses %j with 400 and changes nothing', async (body, detail) => {
    const token = newUser();
    await createClients(token, [{ _id: 'c1', name: 'Ada', phone: '+14155550100' }]);
    const created = await stack.api('GET', '/clients/c1', { token });
    // A valid name beside the bad field: refused all the same, nothing half-applied.
    const sent = body === null || Array.isArray(body) ? body : { name: 'Changed', ...body };
    expectProblem(await stack.api('PATCH', '/clients/c1', { token, body: sent }), 400, detail);
    expect((await stack.api('GET', '/clients/c1', { token })).body).toEqual(created.body);
  });

  test('another user\'s or another business\'s client, a missing one and an impossible id are the same 404', async () => {
    const alice = newUser();
    const bob = newUser();
    await createClients(alice, [{ _id: 'c1', name: 'Ada' }]);
    expectProblem(await stack.api('PATCH', '/clients/c1', { token: bob, body: { name: 'Mine now' } }), 404, 'Client not found');
    expectProblem(await stack.api('PATCH', inBusiness(`${stack.business}-other`, '/clients/c1'), { token: alice, body: { name: 'x' } }), 404, 'Client not found');
    expectProblem(await stack.api('PATCH', '/clients/nobody', { token: alice, body: { name: 'x' } }), 404, 'Client not found');
    expectProblem(await stack.api('PATCH', `/clients/${'x'.repeat(200)}`, { token: alice, body: { name: 'x' } }), 404, 'Client not found');
    // An invalid body on another's client is still a 404: nothing tells the caller it exists.
    expectProblem(await stack.api('PATCH', '/clients/c1', { token: bob, body: { phone: 'bad' } }), 404, 'Client not found');
    expect((await stack.api('GET', '/clients/c1', { token: alice })).body.name).toBe('Ada');
  });
});
