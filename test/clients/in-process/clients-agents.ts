import { randomUUID } from 'node:crypto';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';
import { expectProblem } from '../../support/helpers';

let stack: TestStack;
let otherBusiness: string;
beforeAll(async () => {
  stack = await startTestStack();
  otherBusiness = `${stack.business}-other`;
});
afterAll(() => stack.stop());

/** A fresh user per test, so that listings only hold what the test created. */
const newUser = () => stack.token(`user-${randomUUID()}`);
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('POST /clients', () => {
  test('creates a client with the given _id, name and phone: 201, Location and the stored view', async () => {
    const token = newUser();
    const res = await stack.api('POST', '/clients', { token, body: { _id: 'client-1', name: 'Ada Lovelace', phone: '+14155550123' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ _id: 'client-1', name: 'Ada Lovelace', phone: '+14155550123', timezone: null, created_at: expect.stringMatching(ISO_UTC) });
    expect(res.headers.get('location')).toBe(`/ext/v2/${stack.business}/clients/client-1`);
    expect(Math.abs(Date.parse(res.body.created_at) - Date.now())).toBeLessThan(60_000);
  });

  test('generates an _id when none is given, and the client can be read back at its Location', async () => {
    const token = newUser();
    const res = await stack.api('POST', '/clients', { token, body: {} });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ _id: expect.stringMatching(/^.+$/), name: null, phone: null, timezone: null, created_at: expect.stringMatching(ISO_UTC) });
    const location = res.headers.get('location')!;
    expect(location).toBe(`/ext/v2/${stack.business}/clients/${res.body._id}`);
    const read = await stack.api('GET', `/${location}`, { token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  test('two clients created without _id get different ids', async () => {
    const token = newUser();
    const first = await stack.api('POST', '/clients', { token, body: { name: 'One' } });
    const second = await stack.api('POST', '/clients', { token, body: { name: 'Two' } });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.body._id).not.toBe(second.body._id);
  });

  test('creates a client from an empty request body', async () => {
    const res = await stack.api('POST', '/clients', { token: newUser() });
    expect(res.status).toBe(201);
    expect(res.body._id).toEqual(expect.any(String));
  });

  test.each([
    ['spaces and dashes', '+1 415-555-0123', '+14155550123'],
    ['dots and parentheses', '+44 (20) 7946.0958', '+442079460958'],
    ['already E.164', '+5511987654321', '+5511987654321'],
  ])('normalises the phone to E.164: %s', async (_name, phone, expected) => {
    const res = await stack.api('POST', '/clients', { token: newUser(), body: { phone } });
    expect(res.status).toBe(201);
    expect(res.body.phone).toBe(expected);
  });

  test.each([
    ['without a leading +', '4155550123'],
    ['with letters', '+1 415 CALL NOW'],
    ['too short', '+12345'],
    ['too long', '+1234567890123456'],
    ['starting with +0', '+04155550123'],
    ['empty', ''],
    ['a number instead of a string', 14155550123],
  ])('rejects an invalid phone with 400: %s', async (_name, phone) => {
    const token = newUser();
    const res = await stack.api('POST', '/clients', { token, body: { _id: 'bad-phone', phone } });
    expectProblem(res, 400, /^Invalid phone: /);
    expect((await stack.api('GET', '/clients/bad-phone', { token })).status).toBe(404);
  });

  test.each([
    ['a region/city zone', 'America/New_York'],
    ['a half-hour zone', 'Asia/Kolkata'],
    ['UTC', 'UTC'],
    ['an alias of the time zone database, kept as spelled', 'US/Eastern'],
  ])('stores an IANA timezone and shows it: %s', async (_name, timezone) => {
    const token = newUser();
    const res = await stack.api('POST', '/clients', { token, body: { _id: 'zoned', phone: '+14155550123', timezone } });
    expect(res.status).toBe(201);
    expect(res.body.timezone).toBe(timezone);
    expect((await stack.api('GET', '/clients/zoned', { token })).body.timezone).toBe(timezone);
  });

  test.each([
    ['an unknown zone', 'Mars/Olympus_Mons'],
    ['a UTC offset', '+05:30'],
    ['an offset written as GMT', 'GMT+5'],
    ['empty', ''],
    ['a number', 5],
    ['a path-like string', '../../etc/passwd'],
  ])('rejects an invalid timezone with 400 and stores nothing: %s', async (_name, timezone) => {
    const token = newUser();
    const res = await stack.api('POST', '/clients', { token, body: { _id: 'bad-zone', timezone } });
    expectProblem(res, 400, typeof timezone === 'string' ? 'Invalid timezone: must be an IANA time zone such as America/New_York' : /^Invalid timezone: /);
    expect((await stack.api('GET', '/clients/bad-zone', { token })).status).toBe(404);
  });

  test('rejects a duplicate _id of the same user with 409 and keeps the first client', async () => {
    const token = newUser();
    expect((await stack.api('POST', '/clients', { token, body: { _id: 'dup', name: 'First' } })).status).toBe(201);
    const res = await stack.api('POST', '/clients', { token, body: { _id: 'dup', name: 'Second' } });
    expectProblem(res, 409, 'Client dup already exists');
    expect((await stack.api('GET', '/clients/dup', { token })).body.name).toBe('First');
  });

  test('accepts the same _id for another user in the same business (uniqueness is per business and owner)', async () => {
    const id = uniqueName('shared');
    const alice = await stack.api('POST', '/clients', { token: newUser(), body: { _id: id, name: 'Alice’s' } });
    const bob = await stack.api('POST', '/clients', { token: newUser(), body: { _id: id, name: 'Bob’s' } });
    expect([alice.status, bob.status]).toEqual([201, 201]);
  });

  test('accepts the same _id for the same user in another business', async () => {
    const token = newUser();
    const here = await stack.api('POST', '/clients', { token, body: { _id: 'same-id', name: 'Here' } });
    const there = await stack.api('POST', `//ext/v2/${otherBusiness}/clients`, { token, body: { _id: 'same-id', name: 'There' } });
    expect([here.status, there.status]).toEqual([201, 201]);
    expect(there.headers.get('location')).toBe(`/ext/v2/${otherBusiness}/clients/same-id`);
    expect((await stack.api('GET', '/clients/same-id', { token })).body.name).toBe('Here');
    expect((await stack.api('GET', `//ext/v2/${otherBusiness}/clients/same-id`, { token })).body.name).toBe('There');
  });

  test.each([
    ['contains a slash', 'a/b'],
    ['contains a space', 'a b'],
    ['is 200 characters long', 'x'.repeat(200)],
    ['is empty', ''],
    ['is a number', 42],
  ])('rejects an _id that %s with 400', async (_name, _id) => {
    expectProblem(await stack.api('POST', '/clients', { token: newUser(), body: { _id } }), 400, /^Invalid _id: /);
  });

  test('accepts an _id of 128 characters', async () => {
    const _id = 'c'.repeat(128);
    const res = await stack.api('POST', '/clients', { token: newUser(), body: { _id } });
    expect(res.status).toBe(201);
    expect(res.body._id).toBe(_id);
  });

  test('a name of white space or invisible characters only is no name; one with a visible character is kept as sent', async () => {
    const token = newUser();
    const blank = await stack.api('POST', '/clients', { token, body: { name: '\u200b\u2060 \ufeff' } });
    expect(blank.status).toBe(201);
    expect(blank.body.name).toBeNull();
    const agent = await stack.api('POST', '/agents', { token, body: { name: '\u200d\u3164' } });
    expect(agent.status).toBe(201);
    expect(agent.body.name).toBeNull();
    const family = await stack.api('POST', '/agents', { token, body: { name: '\u{1F468}\u200d\u{1F469}' } });
    expect(family.body.name).toBe('\u{1F468}\u200d\u{1F469}');
  });

  test('rejects a name that is not a string with 400', async () => {
    expectProblem(await stack.api('POST', '/clients', { token: newUser(), body: { name: ['Ada'] } }), 400, /^Invalid name: /);
  });

  test('rejects malformed JSON and a body that is not an object with 400, creating nothing', async () => {
    const token = newUser();
    expectProblem(await stack.api('POST', '/clients', { token, rawBody: '{"_id": ', headers: { 'content-type': 'application/json' } }), 400);
    for (const body of [[{ _id: 'x' }], null, 'x', 7]) {
      expectProblem(await stack.api('POST', '/clients', { token, body }), 400, /^Invalid request body: /);
      expectProblem(await stack.api('POST', '/agents', { token, body }), 400, /^Invalid request body: /);
    }
    expect((await stack.api('GET', '/agents', { token })).body).toEqual({ agents: [] });
  });
});

describe('GET /clients/:_id', () => {
  test('returns the client to its owner', async () => {
    const token = newUser();
    const created = await stack.api('POST', '/clients', { token, body: { _id: 'readable', name: 'Grace', phone: '+1 212 555 0100' } });
    const res = await stack.api('GET', '/clients/readable', { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ _id: 'readable', name: 'Grace', phone: '+12125550100', timezone: null, created_at: created.body.created_at });
  });

  test('is 404 for another user', async () => {
    const owner = newUser();
    await stack.api('POST', '/clients', { token: owner, body: { _id: 'private' } });
    expectProblem(await stack.api('GET', '/clients/private', { token: newUser() }), 404, 'Client not found');
  });

  test('is 404 in another business for the same user', async () => {
    const token = newUser();
    await stack.api('POST', '/clients', { token, body: { _id: 'local-only' } });
    expectProblem(await stack.api('GET', `//ext/v2/${otherBusiness}/clients/local-only`, { token }), 404, 'Client not found');
  });

  test('is 404 for a missing id, and for an id that could never exist', async () => {
    const token = newUser();
    expectProblem(await stack.api('GET', '/clients/nobody', { token }), 404, 'Client not found');
    expectProblem(await stack.api('GET', `/clients/${'x'.repeat(200)}`, { token }), 404, 'Client not found');
    expectProblem(await stack.api('GET', '/clients/a%20b', { token }), 404, 'Client not found');
  });
});

describe('POST /agents and GET /agents', () => {
  test('creates an agent with the given _id and name: 201, Location and the stored view', async () => {
    const res = await stack.api('POST', '/agents', { token: newUser(), body: { _id: 'agent-1', name: 'Ana' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ _id: 'agent-1', name: 'Ana', timezone: null, working_hours: null, presence: 'available', capacity: null, load: 0, created_at: expect.stringMatching(ISO_UTC) });
    expect(res.headers.get('location')).toBe(`/ext/v2/${stack.business}/agents/agent-1`);
  });

  test('generates an _id when none is given', async () => {
    const res = await stack.api('POST', '/agents', { token: newUser(), body: { name: 'No id' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ _id: expect.stringMatching(/^.+$/), name: 'No id', timezone: null, working_hours: null, presence: 'available', capacity: null, load: 0, created_at: expect.stringMatching(ISO_UTC) });
  });

  test('rejects a duplicate _id of the same user with 409', async () => {
    const token = newUser();
    expect((await stack.api('POST', '/agents', { token, body: { _id: 'twice' } })).status).toBe(201);
    expectProblem(await stack.api('POST', '/agents', { token, body: { _id: 'twice' } }), 409, 'Agent twice already exists');
  });

  test('accepts the same agent _id for another user and in another business', async () => {
    const alice = newUser();
    expect((await stack.api('POST', '/agents', { token: alice, body: { _id: 'agent-x' } })).status).toBe(201);
    expect((await stack.api('POST', '/agents', { token: newUser(), body: { _id: 'agent-x' } })).status).toBe(201);
    expect((await stack.api('POST', `//ext/v2/${otherBusiness}/agents`, { token: alice, body: { _id: 'agent-x' } })).status).toBe(201);
  });

  test.each([
    ['contains a slash', 'a/b'],
    ['is 200 characters long', 'y'.repeat(200)],
    ['is not a string', { id: 'a1' }],
  ])('rejects an _id that %s with 400', async (_name, _id) => {
    expectProblem(await stack.api('POST', '/agents', { token: newUser(), body: { _id } }), 400, /^Invalid _id: /);
  });

  test('lists only the caller’s agents in this business, oldest first', async () => {
    const alice = newUser();
    const bob = newUser();
    await stack.api('POST', '/agents', { token: alice, body: { _id: 'a-first', name: 'First' } });
    await stack.api('POST', '/agents', { token: alice, body: { _id: 'a-second' } });
    await stack.api('POST', '/agents', { token: bob, body: { _id: 'b-only' } });
    await stack.api('POST', `//ext/v2/${otherBusiness}/agents`, { token: alice, body: { _id: 'a-elsewhere' } });

    const res = await stack.api('GET', '/agents', { token: alice });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      agents: [
        { _id: 'a-first', name: 'First', timezone: null, working_hours: null, presence: 'available', capacity: null, load: 0, created_at: expect.stringMatching(ISO_UTC) },
        { _id: 'a-second', name: null, timezone: null, working_hours: null, presence: 'available', capacity: null, load: 0, created_at: expect.stringMatching(ISO_UTC) },
      ],
    });
    expect((await stack.api('GET', '/agents', { token: bob })).body.agents.map((a: { _id: string }) => a._id)).toEqual(['b-only']);
    expect((await stack.api('GET', `//ext/v2/${otherBusiness}/agents`, { token: alice })).body.agents.map((a: { _id: string }) => a._id)).toEqual([
      'a-elsewhere',
    ]);
  });

  test('lists no agents for a user who has none', async () => {
    const res = await stack.api('GET', '/agents', { token: newUser() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ agents: [] });
  });
});
