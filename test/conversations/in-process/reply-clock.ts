import { eventually, expectProblem, waitForStatus } from '../../support/helpers';
import { startTestStack, uniqueName, type TestApi, type TestStack } from '../../support/stack';
import { createTestCarrier, TEST_PUBLIC_BASE_URL } from '../../support/test-carrier';

/**
 * The reply clock: a conversation of a client routed by a policy with `next_response_within` that waits
 * longer than that for an answer is reported overdue once per waiting period, naming its holders. Each
 * test owns its user, client and phone, and waits on its own clock: they run side by side
 * (`test.concurrent`, docs/design.md "Suite: concurrent tests inside a file").
 */
const carrier = createTestCarrier();
let stack: TestStack;
let callbacks: TestApi;

beforeAll(async () => {
  stack = await startTestStack({ carrier, routingMinFirstResponseMs: 1000, env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL } });
  callbacks = await stack.startApi();
});
afterAll(() => stack.stop());

const originOf = (api: TestApi) => api.baseUrl.replace(/\/ext\/v2\/.*$/, '');
const texted = async (from: string, body: string) =>
  expect((await carrier.post(originOf(callbacks), `/providers/${carrier.name}/inbound`, { kind: 'inbound', ref: uniqueName('in'), from, to: carrier.sender, text: body })).status).toBe(200);

/** A user whose client c1 was routed to a1 by a policy with this `next_response_within`, and sent a first message (which a text can answer). */
async function routedClient(nextResponseWithin: string, phone: string) {
  const token = stack.token(uniqueName('user'));
  expect((await stack.api('POST', '/agents', { token, body: { _id: 'a1' } })).status).toBe(201);
  expect((await stack.api('PUT', '/teams/sales', { token, body: { members: [{ agent: 'a1' }] } })).status).toBe(200);
  const policy = await stack.api('PUT', '/routing-policies/sales', { token, body: { team: 'sales', working_hours: false, next_response_within: nextResponseWithin } });
  expect(policy.status).toBe(200);
  expect(policy.body.next_response_within).toBe(nextResponseWithin);
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c1', phone } })).status).toBe(201);
  expect((await stack.api('POST', '/clients/c1/route', { token, body: { policy: 'sales' } })).body.status).toBe('assigned');
  const sent = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Welcome aboard' } });
  const message = await waitForStatus(stack.api, token, sent.body._id, 'sent');
  return { token, conversation: message.conversation as string };
}

const overdue = async (token: string) => (await stack.api('GET', '/events?type=conversation.overdue&client=c1&limit=100', { token })).body.events;

test.concurrent('a text left unanswered past next_response_within is reported once, naming the holders; an answer in time reports nothing', async () => {
  const { token, conversation } = await routedClient('PT2S', '+14155589001');
  await texted('+14155589001', 'Hello? Anyone there?');
  await texted('+14155589001', 'Still waiting');
  await eventually(async () => (await overdue(token)).length === 1, 15_000, 200);
  const [event] = await overdue(token);
  expect(event.data).toEqual(expect.objectContaining({ _id: conversation, status: 'open', assignees: ['a1'], waiting_since: expect.any(String), reason: 'reply_clock' }));
  expect(Date.parse(event.created_at) - Date.parse(event.data.waiting_since)).toBeGreaterThanOrEqual(2000);
  // Once per waiting period: the second text did not start another (it would be due about when the first was).
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(await overdue(token)).toHaveLength(1);

  // Answered, then a new waiting period that is answered in time: nothing more.
  expect((await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Sorry, here now' } })).status).toBe(202);
  await texted('+14155589001', 'Great, one question');
  expect((await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Sure' } })).status).toBe(202);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  expect(await overdue(token)).toHaveLength(1);
});

test.concurrent('a snoozed conversation is not overdue while snoozed; it is reported once its snooze ends', async () => {
  const { token, conversation } = await routedClient('PT2S', '+14155589002');
  await texted('+14155589002', 'Can you call me tomorrow?');
  const until = new Date(Date.now() + 4000).toISOString();
  expect((await stack.api('POST', `/conversations/${conversation}/snooze`, { token, body: { until } })).status).toBe(200);
  // A second past its due date, a second before its snooze ends.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  expect(await overdue(token)).toEqual([]);
  await eventually(async () => (await overdue(token)).length === 1, 15_000, 200);
  const [event] = await overdue(token);
  expect(Date.parse(event.created_at)).toBeGreaterThanOrEqual(Date.parse(until));
});

test.concurrent('next_response_within is checked like first_response_within', async () => {
  const token = stack.token(uniqueName('user'));
  expect((await stack.api('PUT', '/teams/sales', { token, body: { members: [] } })).status).toBe(200);
  expectProblem(
    await stack.api('PUT', '/routing-policies/p', { token, body: { team: 'sales', next_response_within: 'soon' } }),
    400,
    'Invalid next_response_within: must be an ISO 8601 duration such as P14D or PT8H, at least 1 seconds and at most 10 years',
  );
});
