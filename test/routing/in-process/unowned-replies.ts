import { randomUUID } from 'node:crypto';
import { eventually, expectProblem, waitForStatus } from '../../support/helpers';
import { startTestStack, uniqueName, type TestApi, type TestStack } from '../../support/stack';
import { createTestCarrier, TEST_PUBLIC_BASE_URL } from '../../support/test-carrier';

/* Section 6 of issue 31: a text from a client nobody holds routes it by the user's route_unowned_replies policy. */

const carrier = createTestCarrier();
let stack: TestStack;
let callbacks: TestApi;

const originOf = (api: TestApi) => api.baseUrl.replace(/\/ext\/v2\/.*$/, '');
const text = (from: string, body: string) => carrier.post(originOf(callbacks), `/providers/${carrier.name}/inbound`, { kind: 'inbound', ref: uniqueName('in'), from, to: '+15550001000', text: body });

beforeAll(async () => {
  stack = await startTestStack({ carrier, env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL } });
  callbacks = await stack.startApi({});
});
afterAll(() => stack.stop());

let phones = 0;
const newPhone = () => `+1415556${String(1000 + ++phones).padStart(4, '0')}`;

/** A user with two agents in a team, a policy routing unowned replies, and a client texted once (so its reply matches). */
async function setUp() {
  const token = stack.token(`user-${randomUUID()}`);
  for (const _id of ['a1', 'a2']) expect((await stack.api('POST', '/agents', { token, body: { _id } })).status).toBe(201);
  expect((await stack.api('PUT', '/teams/sales', { token, body: { members: [{ agent: 'a1' }, { agent: 'a2' }] } })).status).toBe(200);
  const put = await stack.api('PUT', '/routing-policies/replies', { token, body: { team: 'sales', route_unowned_replies: true } });
  expect(put.status).toBe(200);
  expect(put.body.route_unowned_replies).toBe(true);
  const phone = newPhone();
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c1', phone } })).status).toBe(201);
  const sent = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Still interested?' } });
  expect(sent.status).toBe(202);
  await waitForStatus(stack.api, token, sent.body._id, 'sent');
  return { token, phone };
}

const received = async (token: string) => (await stack.api('GET', '/events?type=message.received&client=c1', { token })).body.events;
const active = async (token: string) => (await stack.api('GET', '/clients/c1/agents', { token })).body.assignments.map((a: { agent: string }) => a.agent);

test('a reply from a client nobody holds routes it, and message.received names the new owner', async () => {
  const { token, phone } = await setUp();
  expect((await text(phone, 'Yes, call me')).status).toBe(200);
  const [event] = await eventually(async () => ((await received(token)).length === 1 ? received(token) : null));
  expect(event.data.assignments).toEqual([expect.objectContaining({ agent: 'a1' })]);
  expect(await active(token)).toEqual(['a1']);
  const [assigned] = (await stack.api('GET', '/events?type=routing.assigned&client=c1', { token })).body.events;
  expect(assigned.data).toMatchObject({ policy: 'replies', agent: 'a1', reason: 'rule' });

  // Held now: a second reply routes nothing more.
  expect((await text(phone, 'Any time after 5')).status).toBe(200);
  await eventually(async () => (await received(token)).length === 2);
  expect(await active(token)).toEqual(['a1']);
  expect((await stack.api('GET', '/events?type=routing.assigned&client=c1', { token })).body.events).toHaveLength(1);
});

test('a client already held, or a keyword, is not routed', async () => {
  const { token, phone } = await setUp();
  expect((await text(phone, 'HELP')).status).toBe(200);
  await eventually(async () => (await received(token)).length === 1);
  expect(await active(token)).toEqual([]);

  expect((await stack.api('POST', '/clients/c1/assign-agents', { token, body: { agents: [{ agent: 'a2', dt_until: '2099-01-01' }] } })).status).toBe(200);
  expect((await text(phone, 'Hello?')).status).toBe(200);
  const events = await eventually(async () => ((await received(token)).length === 2 ? received(token) : null));
  expect(events.find((e: { data: { text_message: string } }) => e.data.text_message === 'Hello?').data.assignments).toEqual([expect.objectContaining({ agent: 'a2' })]);
  expect(await active(token)).toEqual(['a2']);
});

test('at most one policy of a user routes unowned replies', async () => {
  const { token } = await setUp();
  expectProblem(await stack.api('PUT', '/routing-policies/other', { token, body: { team: 'sales', route_unowned_replies: true } }), 400, 'Invalid route_unowned_replies: policy replies already routes unowned replies');
  expect((await stack.api('PUT', '/routing-policies/replies', { token, body: { team: 'sales', route_unowned_replies: true, capacity: 3 } })).status).toBe(200);
  expect((await stack.api('PUT', '/routing-policies/other', { token, body: { team: 'sales' } })).status).toBe(200);
});

test('two concurrent PUTs each setting route_unowned_replies on another policy: exactly one wins, the other is the 400', async () => {
  const outcomes = await Promise.all(
    Array.from({ length: 5 }, async () => {
      const token = stack.token(`user-${randomUUID()}`);
      expect((await stack.api('POST', '/agents', { token, body: { _id: 'a1' } })).status).toBe(201);
      expect((await stack.api('PUT', '/teams/sales', { token, body: { members: [{ agent: 'a1' }] } })).status).toBe(200);
      const [p1, p2] = await Promise.all(['p1', 'p2'].map((p) => stack.api('PUT', `/routing-policies/${p}`, { token, body: { team: 'sales', route_unowned_replies: true } })));
      const policies = (await stack.api('GET', '/routing-policies', { token })).body.routing_policies as { _id: string; route_unowned_replies: boolean }[];
      return { statuses: [p1.status, p2.status].sort(), loser: [p1, p2].find((r) => r.status !== 200)?.body.detail, routing: policies.filter((p) => p.route_unowned_replies).length };
    }),
  );
  for (const { statuses, loser, routing } of outcomes) {
    expect(statuses).toEqual([200, 400]);
    expect(loser).toMatch(/^Invalid route_unowned_replies: policy p[12] already routes unowned replies$/);
    expect(routing).toBe(1);
  }
});
