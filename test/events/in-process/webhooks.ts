import { Worker } from '@temporalio/worker';
import { createWebhookProvider } from '../../../src/activities/providers/webhook';
import { webhookDeliveryWorkflowId } from '../../../src/domain';
import { delivered, receivedEvents, subscribe, verified } from '../../support/events';
import { eventually, waitForStatus } from '../../support/helpers';
import { temporalTextOf } from '../../support/history';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';
import { receiversClosedAfterAll } from '../../support/webhook-receiver';

/*
 * Events out, end to end: the API and the workflows change assignments and messages, each change
 * records its event, and a real HTTP receiver gets it signed per Standard Webhooks (checked with the
 * reference verifier, `standardwebhooks`), retried as the answers say.
 *
 * Each test owns its user, client and receiver: all but two run side by side (`test.concurrent`,
 * docs/design.md "Suite: concurrent tests inside a file"). Alone: the first, whose a1 expires 4 s after
 * it is assigned (three requests must come before), and the provider's refusal, which restarts the worker.
 */

let stack: TestStack;
const receiver = receiversClosedAfterAll();

beforeAll(async () => {
  stack = await startTestStack({ rotationMinPeriodMs: 1000, env: { WEBHOOK_RETRY_INITIAL_MS: '300', WEBHOOK_RETRY_MAX_INTERVAL_MS: '1000', WEBHOOK_TIMEOUT_MS: '1500' } });
});
afterAll(() => stack.stop());

/** A user of its own (subscriptions and events are per user) with a client and agents. */
async function newUser(agents: string[] = []) {
  const token = stack.token(uniqueName('user'));
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c1', name: 'Ada Lovelace', phone: '+1 415 555 0100' } })).status).toBe(201);
  for (const _id of agents) expect((await stack.api('POST', '/agents', { token, body: { _id } })).status).toBe(201);
  return token;
}

const withoutEventFields = ({ reason: _reason, client: _client, ...item }: Record<string, unknown>) => item;

test('every change of an assignment and a message arrives once, signed, with the resource as its GET route shows it', async () => {
  const hooks = await receiver();
  const token = await newUser(['a1', 'a2']);
  const { _id, secret } = await subscribe(stack.api, token, hooks);

  // a1's expiry must come after the update below: three requests, 2.5 s were too few at load 8 with two jest workers.
  const soon = new Date(Date.now() + 4000).toISOString();
  expect((await stack.api('POST', '/clients/c1/assign-agents', { token, body: { agents: [{ agent: 'a1', dt_until: soon }, { agent: 'a2' }], ds_notes: 'Ada prefers mornings' } })).status).toBe(200);
  // Re-assigning a2 with new notes is an update; saying the same again changes nothing and reports nothing.
  expect((await stack.api('POST', '/clients/c1/assign-agents', { token, body: { agents: [{ agent: 'a2' }], ds_notes: 'Ada moved to Paris' } })).status).toBe(200);
  expect((await stack.api('POST', '/clients/c1/assign-agents', { token, body: { agents: [{ agent: 'a2' }], ds_notes: 'Ada moved to Paris' } })).status).toBe(200);
  const now = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Hello Ada' } });
  const later = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Later', delay: 'PT1H' } });
  await waitForStatus(stack.api, token, now.body._id, 'sent');
  expect((await stack.api('POST', `/messages/${later.body._id}/cancel`, { token })).status).toBe(200);
  // a1 expires by its timer.
  await eventually(async () => (await stack.api('GET', '/clients/c1/agents?status=all', { token })).body.assignments.find((a: any) => a.agent === 'a1' && a.status === 'expired'));
  expect((await stack.api('DELETE', '/clients/c1/agents/a2', { token })).status).toBe(200);

  const expected = [
    'assignment.created a1 api', 'assignment.created a2 api', 'assignment.updated a2 api', 'assignment.expired a1 expiry', 'assignment.unassigned a2 api',
    `message.scheduled ${now.body._id} api`, `message.sending ${now.body._id} api`, `message.sent ${now.body._id} api`,
    `message.scheduled ${later.body._id} api`, `message.canceled ${later.body._id} api`,
  ];
  const requests = await receivedEvents(hooks, expected.length);
  // A delivery is marked delivered after its receiver's 200: once all are, no run has a request left to send.
  await eventually(async () => {
    const listed = (await stack.api('GET', `/webhooks/${_id}/deliveries?limit=100`, { token })).body.deliveries;
    return listed.length === expected.length && listed.every((d: { status: string }) => d.status === 'delivered');
  });
  expect(hooks.requests).toHaveLength(expected.length);

  const events = requests.map((request) => verified(secret, request));
  for (const [i, request] of requests.entries()) {
    expect(request.headers['webhook-id']).toBe(events[i].id);
    expect(request.headers['content-type']).toBe('application/json');
  }
  const describe = (e: any) => `${e.type} ${e.type.startsWith('assignment.') ? e.data.agent : e.data._id} ${e.data.reason}`;
  expect(events.map(describe).sort()).toEqual([...expected].sort());
  expect(new Set(events.map((e) => e.id)).size).toBe(expected.length);
  for (const event of events) expect(event).toEqual({ id: expect.any(String), type: expect.any(String), created_at: expect.any(String), business: stack.business, data: expect.any(Object) });

  // The last event of each resource carries it exactly as its GET route shows it now.
  const lastOf = (match: (e: any) => boolean) => events.filter(match).sort((a, b) => a.created_at.localeCompare(b.created_at)).pop();
  const items = (await stack.api('GET', '/clients/c1/agents?status=all', { token })).body.assignments;
  for (const item of items) {
    const last = lastOf((e) => e.type.startsWith('assignment.') && e.data.agent === item.agent);
    expect(last.data.client).toBe('c1');
    expect(withoutEventFields(last.data)).toEqual(item);
  }
  for (const id of [now.body._id, later.body._id]) {
    const { reason: _reason, ...data } = lastOf((e) => e.data._id === id).data;
    expect(data).toEqual((await stack.api('GET', `/messages/${id}`, { token })).body);
  }
  const sending = events.find((e) => e.type === 'message.sending');
  expect(sending.data).toMatchObject({ status: 'sending', dispatched_at: expect.any(String), sent_at: null });
  expect(events.find((e) => e.type === 'assignment.created' && e.data.agent === 'a2').data).toMatchObject({ ds_notes: 'Ada prefers mornings', status: 'active' });

  // The feed has the same events, in commit order.
  const feed = (await stack.api('GET', '/events?limit=100', { token })).body;
  expect(feed.events).toHaveLength(expected.length);
  expect([...feed.events].sort((a, b) => a.id.localeCompare(b.id))).toEqual([...events].sort((a, b) => a.id.localeCompare(b.id)));
  expect(feed.events.map((e: any) => e.type).slice(0, 3)).toEqual(['assignment.created', 'assignment.created', 'assignment.updated']);

  // Temporal holds the deliveries by ids and the event type only.
  const deliveries = (await stack.prisma.webhookDelivery.findMany({ where: { event: { id: { in: events.map((e) => e.id) } } } })).map((d) => d.id);
  const texts = await Promise.all(deliveries.slice(0, 3).map((id) => temporalTextOf(stack.temporal, webhookDeliveryWorkflowId(id))));
  for (const text of texts) {
    for (const personal of ['Ada Lovelace', '+14155550100', 'Hello Ada', 'Ada prefers mornings', 'Ada moved to Paris', hooks.url, secret, secret.slice(6)]) expect(text).not.toContain(personal);
  }
});

test.concurrent('a rotation\'s periods are events with reason rule: handed out, cut short by a replacement applied now, then expired', async () => {
  const hooks = await receiver();
  const token = await newUser(['a1', 'a2']);
  const { secret } = await subscribe(stack.api, token, hooks, { events: ['assignment.*'] });
  expect((await stack.api('PUT', '/clients/c1/rotation', { token, body: { agents: ['a1', 'a2'], period: '1h' } })).status).toBe(201);
  await receivedEvents(hooks, 1);
  expect((await stack.api('PUT', '/clients/c1/rotation', { token, body: { agents: ['a2'], period: '1h', apply: 'now' } })).status).toBe(200);

  const events = (await receivedEvents(hooks, 4)).map((r) => verified(secret, r));
  const byTime = [...events].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.type.localeCompare(b.type));
  expect(new Set(events.map((e) => `${e.type} ${e.data.agent} ${e.data.reason} ${e.data.rotation}`))).toEqual(
    new Set(['assignment.created a1 rule true', 'assignment.updated a1 rule true', 'assignment.expired a1 expiry true', 'assignment.created a2 rule true']),
  );
  expect(byTime[0]).toMatchObject({ type: 'assignment.created', data: { agent: 'a1', status: 'active' } });
  const cut = events.find((e) => e.type === 'assignment.updated');
  expect(Date.parse(cut.data.dt_until)).toBeLessThanOrEqual(Date.now());
  const items = (await stack.api('GET', '/clients/c1/agents?status=all', { token })).body.assignments;
  const a1 = events.find((e) => e.type === 'assignment.expired');
  expect(withoutEventFields(a1.data)).toEqual(items.find((i: any) => i.agent === 'a1'));
});

test.concurrent('an operator canceling a message in the Temporal UI is an event with reason operator; canceling a client\'s run ends no assignment', async () => {
  const hooks = await receiver();
  const token = await newUser(['a1']);
  const { secret } = await subscribe(stack.api, token, hooks, { events: ['assignment.unassigned', 'message.canceled'] });
  const assigned = await stack.api('POST', '/clients/c1/assign-agents', { token, body: { agents: [{ agent: 'a1' }] } });
  const message = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Later', delay: 'PT1H' } });
  const clientRun = stack.temporal.workflow.getHandle(assigned.body.assignments[0].workflow_id);
  await clientRun.cancel();
  await stack.temporal.workflow.getHandle(message.body.workflow_id).cancel();
  const events = (await receivedEvents(hooks, 1)).map((r) => verified(secret, r));
  expect(events.map((e) => `${e.type} ${e.data.reason} ${e.data.status}`)).toEqual(['message.canceled operator canceled']);
  // The client's run closed without changing a row: a1 is still assigned, and no assignment.unassigned was recorded.
  await eventually(async () => ((await clientRun.describe()).status.name === 'CANCELLED' ? true : undefined));
  expect((await stack.api('GET', '/clients/c1/agents', { token })).body.assignments.map((a: { agent: string }) => a.agent)).toEqual(['a1']);
  expect((await stack.api('GET', '/events?type=assignment.unassigned', { token })).body.events).toEqual([]);
});

test.concurrent('a receiver answering 503, then 200, gets the same webhook-id again and the event is delivered once', async () => {
  const hooks = await receiver();
  const token = await newUser();
  const { _id, secret } = await subscribe(stack.api, token, hooks, { events: ['message.scheduled'] });
  hooks.respond = (request) => (request.attempt === 1 ? 503 : 200);
  const message = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Hi', delay: 'PT1H' } });

  const [ok] = await receivedEvents(hooks, 1);
  expect(hooks.requests.map((r) => r.status)).toEqual([503, 200]);
  expect(hooks.requests[0].headers['webhook-id']).toBe(ok.headers['webhook-id']);
  expect(hooks.requests[0].rawBody).toBe(ok.rawBody);
  expect(verified(secret, ok).data._id).toBe(message.body._id);

  const deliveries = await eventually(async () => {
    const listed = (await stack.api('GET', `/webhooks/${_id}/deliveries`, { token })).body.deliveries;
    return listed[0]?.status === 'delivered' ? listed : undefined;
  });
  expect(deliveries).toEqual([
    expect.objectContaining({ status: 'delivered', attempts: 2, last_status_code: 200, last_error: null, event: expect.objectContaining({ id: ok.headers['webhook-id'], type: 'message.scheduled' }) }),
  ]);

  // Its run (a local first attempt, a wait, a retried activity) replays deterministically and sends nothing.
  const handle = stack.temporal.workflow.getHandle(webhookDeliveryWorkflowId(deliveries[0]._id));
  expect(await handle.result()).toEqual({ outcome: 'delivered' });
  await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } }, await handle.fetchHistory(), handle.workflowId);
  expect(hooks.requests).toHaveLength(2);
});

test.concurrent('429 with Retry-After is retried no sooner than the receiver asked; a timeout is retried too', async () => {
  const hooks = await receiver();
  const token = await newUser();
  await subscribe(stack.api, token, hooks, { events: ['message.scheduled'] });
  hooks.respond = (request) =>
    request.attempt === 1 ? { status: 429, headers: { 'Retry-After': '1' } } : request.attempt === 2 ? { status: 200, delayMs: 2500 } : 200;
  await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Hi', delay: 'PT1H' } });

  await eventually(async () => (hooks.requests.length >= 3 ? true : undefined));
  const [first, second, third] = hooks.requests;
  // The stack's own backoff starts at 300 ms (WEBHOOK_RETRY_INITIAL_MS): a second of wait is the receiver's.
  expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(900);
  // The second answer came after the 1.5 s timeout: not a delivery as far as the service knows.
  expect(third.headers['webhook-id']).toBe(first.headers['webhook-id']);
});

test.concurrent('410 Gone disables the webhook: its delivery failed, and later events are not sent to it', async () => {
  const hooks = await receiver();
  const token = await newUser();
  const { _id } = await subscribe(stack.api, token, hooks);
  hooks.respond = () => 410;
  await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Hi', delay: 'PT1H' } });

  const webhook = await eventually(async () => {
    const read = (await stack.api('GET', `/webhooks/${_id}`, { token })).body;
    return read.disabled_at ? read : undefined;
  });
  expect(webhook.disabled_reason).toBe('The receiver answered 410 Gone');
  const [delivery] = (await stack.api('GET', `/webhooks/${_id}/deliveries`, { token })).body.deliveries;
  expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 410, last_error: 'Receiver answered 410 Gone' });

  await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Again', delay: 'PT1H' } });
  // The feed still has both; an event's deliveries are inserted in its own statement (src/db/events.ts), so it has none.
  await eventually(async () => (await stack.api('GET', '/events?type=message.scheduled', { token })).body.events.length === 2);
  expect((await stack.api('GET', `/webhooks/${_id}/deliveries`, { token })).body.deliveries).toHaveLength(1);
  expect(hooks.requests).toHaveLength(1);
});

test.concurrent('any other 4xx is final for that event: one attempt, failed, and the webhook stays active', async () => {
  const hooks = await receiver();
  const token = await newUser();
  const { _id } = await subscribe(stack.api, token, hooks);
  hooks.respond = () => ({ status: 422, body: '{"error":"Ada Lovelace is not welcome"}' });
  await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Hi', delay: 'PT1H' } });

  const [delivery] = await eventually(async () => {
    const listed = (await stack.api('GET', `/webhooks/${_id}/deliveries`, { token })).body.deliveries;
    return listed[0]?.status === 'failed' ? listed : undefined;
  });
  expect(delivery).toMatchObject({ attempts: 1, last_status_code: 422, last_error: 'Receiver answered 422 Unprocessable Entity' });
  // Its run has closed: no attempt is left to come.
  const run = stack.temporal.workflow.getHandle(webhookDeliveryWorkflowId(delivery._id));
  await eventually(async () => ((await run.describe()).status.name !== 'RUNNING' ? true : undefined));
  expect(hooks.requests).toHaveLength(1);
  expect((await stack.api('GET', `/webhooks/${_id}`, { token })).body.disabled_at).toBeNull();
});

test.concurrent('after rotate-secret both secrets verify the deliveries for 24 hours; the answer shows the new secret once', async () => {
  const hooks = await receiver();
  const token = await newUser();
  const created = await subscribe(stack.api, token, hooks, { events: ['message.*'] });
  const rotated = await stack.api('POST', `/webhooks/${created._id}/rotate-secret`, { token });
  expect(rotated.status).toBe(200);
  expect(rotated.body.secret).toMatch(/^whsec_/);
  expect(rotated.body.secret).not.toBe(created.secret);
  const expires = Date.parse(rotated.body.previous_secret_expires_at);
  expect(Math.abs(expires - Date.now() - 24 * 60 * 60 * 1000)).toBeLessThan(60_000);
  const read = (await stack.api('GET', `/webhooks/${created._id}`, { token })).body;
  expect(read).not.toHaveProperty('secret');
  expect(read.previous_secret_expires_at).toBe(rotated.body.previous_secret_expires_at);

  await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Hi', delay: 'PT1H' } });
  const [request] = await receivedEvents(hooks, 1);
  expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
  expect(verified(rotated.body.secret, request).type).toBe('message.scheduled');
  expect(verified(created.secret, request).type).toBe('message.scheduled');
  expect(() => verified(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, request)).toThrow();

  // A second rotation drops the first secret.
  const again = await stack.api('POST', `/webhooks/${created._id}/rotate-secret`, { token });
  await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Hi again', delay: 'PT1H' } });
  const second = (await receivedEvents(hooks, 2))[1];
  expect(verified(again.body.secret, second).type).toBe('message.scheduled');
  expect(verified(rotated.body.secret, second).type).toBe('message.scheduled');
  expect(() => verified(created.secret, second)).toThrow();
});

test('a message the provider refuses is message.failed, with the failure as GET shows it', async () => {
  const hooks = await receiver();
  const provider = await receiver();
  provider.respond = () => 400;
  const token = await newUser();
  const { secret } = await subscribe(stack.api, token, hooks, { events: ['message.failed'] });
  await stack.stopWorker();
  await stack.startWorker(createWebhookProvider({ url: provider.url }));
  try {
    const message = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Hi' } });
    const failed = await waitForStatus(stack.api, token, message.body._id, 'failed');
    const [request] = await receivedEvents(hooks, 1);
    const { reason, ...data } = verified(secret, request).data;
    expect(reason).toBe('api');
    expect(data).toEqual(failed);
  } finally {
    await stack.stopWorker();
    await stack.startWorker();
  }
});

test.concurrent('deleting a webhook stops its deliveries', async () => {
  const hooks = await receiver();
  const token = await newUser();
  const { _id } = await subscribe(stack.api, token, hooks);
  expect((await stack.api('DELETE', `/webhooks/${_id}`, { token })).status).toBe(204);
  await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Hi', delay: 'PT1H' } });
  // The event is recorded with its deliveries in one statement: once it is in the feed, it has none.
  const [event] = await eventually(async () => {
    const events = (await stack.api('GET', '/events?type=message.scheduled', { token })).body.events;
    return events.length === 1 ? events : undefined;
  });
  expect(await stack.prisma.webhookDelivery.count({ where: { eventId: event.id } })).toBe(0);
  expect(delivered(hooks)).toHaveLength(0);
  expect((await stack.api('GET', `/webhooks/${_id}`, { token })).status).toBe(404);
});
