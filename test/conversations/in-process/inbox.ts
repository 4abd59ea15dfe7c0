import { MockActivityEnvironment } from '@temporalio/testing';
import { createReconcileActivities } from '../../../src/activities/housekeeping/reconcile';
import { clientWorkflowId } from '../../../src/domain';
import { eventually, expectProblem, waitForStatus } from '../../support/helpers';
import { startTestStack, uniqueName, type TestApi, type TestStack } from '../../support/stack';
import { createTestCarrier, TEST_PUBLIC_BASE_URL } from '../../support/test-carrier';
import { untilListedEnded } from '../../support/listed-ended';

/**
 * An agent's inbox: the conversation a client's messages make, waiting for an answer until one goes
 * out, snoozed until a date (a durable timer of the client's run), closed and reopened, with read
 * horizons per agent and internal notes that are never sent.
 *
 * Each test owns its client and phone: most run side by side (`test.concurrent`, docs/design.md "Suite:
 * concurrent tests inside a file"). Alone: the first (it lists all of alice's waiting conversations, so it
 * runs before the others), the terminated run's (the reconciler counts every snooze of the business) and
 * the note's (it counts every send of the carrier).
 */
const carrier = createTestCarrier();
let stack: TestStack;
let callbacks: TestApi;
let alice: string;
let bob: string;

const originOf = (api: TestApi) => api.baseUrl.replace(/\/ext\/v2\/.*$/, '');
const texted = async (from: string, body: string) => {
  const res = await carrier.post(originOf(callbacks), `/providers/${carrier.name}/inbound`, { kind: 'inbound', ref: uniqueName('in'), from, to: carrier.sender, text: body });
  expect(res.status).toBe(200);
};

beforeAll(async () => {
  stack = await startTestStack({ carrier, env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL } });
  callbacks = await stack.startApi();
  alice = stack.token(uniqueName('alice'));
  bob = stack.token(uniqueName('bob'));
  for (const _id of ['a1', 'a2']) expect((await stack.api('POST', '/agents', { token: alice, body: { _id } })).status).toBe(201);
});
afterAll(() => stack.stop());

// A range no other file texts from the shared sender: a phone two users texted makes its replies ambiguous.
let phones = 0;
const newPhone = () => `+1415558${String(1000 + ++phones).padStart(4, '0')}`;

/** A client of alice's with a message sent to it (a reply needs one to answer), and the conversation that message made. */
async function clientWithThread(id: string, agent?: string): Promise<{ phone: string; conversation: string }> {
  const phone = newPhone();
  expect((await stack.api('POST', '/clients', { token: alice, body: { _id: id, phone } })).status).toBe(201);
  if (agent) expect((await stack.api('POST', `/clients/${id}/assign-agents`, { token: alice, body: { agents: [{ agent, dt_until: '2099-01-01' }] } })).status).toBe(200);
  const res = await stack.api('POST', '/messages', { token: alice, body: { message_type: 'text', client: id, text_message: 'Hello from Acme' } });
  expect(res.status).toBe(202);
  const sent = await waitForStatus(stack.api, alice, res.body._id, 'sent');
  expect(sent.conversation).toEqual(expect.any(String));
  return { phone, conversation: sent.conversation };
}

const conversation = async (id: string, query = '', token = alice) => stack.api('GET', `/conversations/${id}${query}`, { token });
const events = async (type: string, client: string) => (await stack.api('GET', `/events?type=${type}&client=${client}&limit=100`, { token: alice })).body.events;

test('the first message creates the conversation; texts make it wait, oldest first, until a message of ours answers it', async () => {
  const first = await clientWithThread('inbox-c1', 'a1');
  const second = await clientWithThread('inbox-c2', 'a2');
  const created = (await conversation(first.conversation)).body;
  expect(created).toEqual(expect.objectContaining({ client: 'inbox-c1', sender: carrier.sender, status: 'open', assignees: ['a1'], waiting_since: null, last_outbound_at: expect.any(String), unread: null }));

  await texted(first.phone, 'Is the offer still on?');
  await texted(second.phone, 'Call me back please');
  const waiting = await stack.api('GET', '/conversations?waiting=true', { token: alice });
  expect(waiting.status).toBe(200);
  expect(waiting.body.conversations.map((c: any) => c.client)).toEqual(['inbox-c1', 'inbox-c2']);
  const [c1] = waiting.body.conversations;
  expect(Date.parse(c1.waiting_since)).toBe(Date.parse(c1.last_inbound_at));
  expect(c1.first_response_at).toBeNull();

  const answer = await stack.api('POST', '/messages', { token: alice, body: { message_type: 'text', client: 'inbox-c1', text_message: 'Yes, until Friday' } });
  expect(answer.status).toBe(202);
  const answered = (await conversation(first.conversation)).body;
  expect(answered.waiting_since).toBeNull();
  // The first response is the carrier's hand-over of the answer.
  const handedOver = await waitForStatus(stack.api, alice, answer.body._id, 'sent');
  const responded = (await conversation(first.conversation)).body.first_response_at;
  expect(Date.parse(responded)).toBeGreaterThanOrEqual(Date.parse(handedOver.created_at));
  expect(Date.parse(responded)).toBeLessThanOrEqual(Date.parse(handedOver.sent_at));
  expect((await stack.api('GET', '/conversations?waiting=true', { token: alice })).body.conversations.map((c: any) => c.client)).toEqual(['inbox-c2']);
  // Newest activity first; an agent's filter holds only its clients.
  expect((await stack.api('GET', '/conversations?agent=a2', { token: alice })).body.conversations.map((c: any) => c.client)).toEqual(['inbox-c2']);
  // A later text waits again, on a conversation that is already open: no second `conversation.opened`.
  await texted(first.phone, 'And Saturday?');
  expect((await conversation(first.conversation)).body.waiting_since).not.toBeNull();
  const [opened, ...again] = await events('conversation.opened', 'inbox-c1');
  expect(again).toEqual([]);
  expect(opened.data).toEqual(expect.objectContaining({ _id: first.conversation, status: 'open', assignees: ['a1'], reason: 'carrier' }));
});

test.concurrent('an answer suppressed by the client\'s STOP answered nothing: first_response_at waits for a message a carrier took', async () => {
  const { phone, conversation: id } = await clientWithThread('inbox-suppressed');
  await texted(phone, 'Can you call me?');
  const later = await stack.api('POST', '/messages', { token: alice, body: { message_type: 'text', client: 'inbox-suppressed', text_message: 'Calling you at 5', delay: '2s' } });
  expect(later.status).toBe(202);
  await texted(phone, 'STOP');
  await waitForStatus(stack.api, alice, later.body._id, 'suppressed');
  expect((await conversation(id)).body.first_response_at).toBeNull();
  expect(carrier.sends.filter((s) => s.id === later.body._id)).toEqual([]);

  await texted(phone, 'START');
  const answer = await stack.api('POST', '/messages', { token: alice, body: { message_type: 'text', client: 'inbox-suppressed', text_message: 'Calling you now' } });
  expect(answer.status).toBe(202);
  const sent = await waitForStatus(stack.api, alice, answer.body._id, 'sent');
  expect(Date.parse((await conversation(id)).body.first_response_at)).toBeLessThanOrEqual(Date.parse(sent.sent_at));
});

test.concurrent('a snooze opens the conversation again by itself at its date, through the client\'s run', async () => {
  const { conversation: id } = await clientWithThread('inbox-snooze');
  const until = new Date(Date.now() + 2500).toISOString();
  const snoozed = await stack.api('POST', `/conversations/${id}/snooze`, { token: alice, body: { until } });
  expect(snoozed.status).toBe(200);
  expect(snoozed.body).toEqual(expect.objectContaining({ status: 'snoozed', snoozed_until: until }));
  expect((await stack.api('GET', '/conversations?status=snoozed', { token: alice })).body.conversations.map((c: any) => c._id)).toContain(id);

  await eventually(async () => (await conversation(id)).body.status === 'open', 15_000, 200);
  const reopened = await events('conversation.reopened', 'inbox-snooze');
  expect(reopened).toHaveLength(1);
  expect(reopened[0].data).toEqual(expect.objectContaining({ status: 'open', snoozed_until: null, reason: 'snooze' }));
  expect(Date.parse(reopened[0].created_at)).toBeGreaterThanOrEqual(Date.parse(until));
});

test('a snooze outlives its client\'s run being terminated: the reconciler starts the run again, which opens it on time', async () => {
  const { conversation: id } = await clientWithThread('inbox-terminated');
  const until = new Date(Date.now() + 4000).toISOString();
  expect((await stack.api('POST', `/conversations/${id}/snooze`, { token: alice, body: { until } })).status).toBe(200);
  const client = await stack.prisma.client.findFirstOrThrow({ where: { business: stack.business, id: 'inbox-terminated' } });
  const run = stack.temporal.workflow.getHandle(clientWorkflowId({ business: stack.business, clientId: 'inbox-terminated', clientPk: client.pk }));
  // The snooze reaches the run as a signal, taken a moment after the answer.
  await eventually(async () => ((await run.query<{ conversations: unknown[] }>('state')).conversations.length > 0 ? true : undefined));
  expect((await run.query<{ conversations: unknown[] }>('state')).conversations).toEqual([{ conversationId: id, reason: 'snooze', dueAt: until }]);
  await run.terminate('operator test');
  await untilListedEnded(stack.temporal, run.workflowId);

  const reconciler = createReconcileActivities({ prisma: stack.prisma, temporal: stack.temporal, taskQueue: stack.taskQueue });
  const result = (await new MockActivityEnvironment().run(reconciler.reconcileOrphans, { graceMs: 0, business: stack.business, full: true })) as { snoozesRestarted?: number };
  expect(result.snoozesRestarted).toBe(1);
  expect((await conversation(id)).body.status).toBe('snoozed');
  await eventually(async () => (await conversation(id)).body.status === 'open', 15_000, 200);
  const [reopened] = await events('conversation.reopened', 'inbox-terminated');
  expect(Date.parse(reopened.created_at)).toBeGreaterThanOrEqual(Date.parse(until));
});

test.concurrent('a text during a snooze opens it at once; close and reopen move it, and a closed one is not snoozed', async () => {
  const { phone, conversation: id } = await clientWithThread('inbox-reply');
  expect((await stack.api('POST', `/conversations/${id}/snooze`, { token: alice, body: { until: new Date(Date.now() + 3600_000).toISOString() } })).status).toBe(200);
  await texted(phone, 'Actually, one more question');
  expect((await conversation(id)).body).toEqual(expect.objectContaining({ status: 'open', snoozed_until: null, waiting_since: expect.any(String) }));

  const closed = await stack.api('POST', `/conversations/${id}/close`, { token: alice });
  expect(closed.body).toEqual(expect.objectContaining({ status: 'closed', waiting_since: null }));
  expectProblem(await stack.api('POST', `/conversations/${id}/snooze`, { token: alice, body: { until: new Date(Date.now() + 60_000).toISOString() } }), 409, 'A closed conversation cannot be snoozed: reopen it first');
  expect((await stack.api('POST', `/conversations/${id}/reopen`, { token: alice })).body.status).toBe('open');
  // Reopening an open one changes nothing and records nothing.
  expect((await stack.api('POST', `/conversations/${id}/reopen`, { token: alice })).body.status).toBe('open');
  expect((await events('conversation.reopened', 'inbox-reply')).map((e: any) => e.data.reason)).toEqual(['api']);
  expect((await events('conversation.closed', 'inbox-reply'))).toHaveLength(1);

  await stack.api('POST', `/conversations/${id}/close`, { token: alice });
  await texted(phone, 'Hello again');
  expect((await conversation(id)).body.status).toBe('open');
  expect((await events('conversation.opened', 'inbox-reply')).map((e: any) => e.data.reason)).toEqual(['carrier', 'carrier']);
});

test.concurrent('each agent has its own read horizon, which never moves back', async () => {
  const { phone, conversation: id } = await clientWithThread('inbox-read', 'a1');
  await texted(phone, 'one');
  await texted(phone, 'two');
  await texted(phone, 'three');
  const thread = (await stack.api('GET', `/conversations/${id}/messages`, { token: alice })).body.messages;
  const inbound = thread.filter((m: any) => m.direction === 'inbound').map((m: any) => m._id);
  expect(inbound).toHaveLength(3);
  const [three, two] = inbound;

  expect((await conversation(id, '?agent=a1')).body.unread).toBe(3);
  expect((await stack.api('POST', `/conversations/${id}/read`, { token: alice, body: { agent: 'a1', message: two } })).body.unread).toBe(1);
  expect((await stack.api('POST', `/conversations/${id}/read`, { token: alice, body: { agent: 'a2', message: three } })).body.unread).toBe(0);
  // Back is ignored.
  expect((await stack.api('POST', `/conversations/${id}/read`, { token: alice, body: { agent: 'a2', message: two } })).body.unread).toBe(0);
  expect((await stack.api('GET', `/conversations?agent=a1&client=inbox-read`, { token: alice })).body.conversations[0].unread).toBe(1);
  expectProblem(await stack.api('POST', `/conversations/${id}/read`, { token: alice, body: { agent: 'a1', message: '00000000-0000-4000-8000-000000000000' } }), 404, 'Message not found in this conversation');
  expectProblem(await stack.api('POST', `/conversations/${id}/read`, { token: alice, body: { agent: 'nobody', message: two } }), 404, 'Agent not found');
});

test('a note stays in the thread, is never sent, and goes with the client\'s erasure', async () => {
  const { conversation: id } = await clientWithThread('inbox-note');
  const sendsBefore = carrier.sends.length;
  const added = await stack.api('POST', `/conversations/${id}/notes`, { token: alice, body: { agent: 'a1', text: 'VIP: wants a call on Monday' } });
  expect(added.status).toBe(201);
  expect(added.body).toEqual(expect.objectContaining({ conversation: id, internal: true, agent: 'a1', text: 'VIP: wants a call on Monday' }));
  const [latest] = (await stack.api('GET', `/conversations/${id}/messages`, { token: alice })).body.messages;
  expect(latest).toEqual(added.body);
  expect((await conversation(id)).body.latest[0]).toEqual(added.body);
  expect(carrier.sends.length).toBe(sendsBefore);
  const [event] = await events('conversation.note_added', 'inbox-note');
  expect(event.data).toEqual(expect.objectContaining({ text: 'VIP: wants a call on Monday', client: 'inbox-note', reason: 'api' }));

  expect((await stack.api('DELETE', '/clients/inbox-note', { token: alice })).status).toBe(204);
  expectProblem(await conversation(id), 404, 'Conversation not found');
  const all = (await stack.api('GET', '/events?type=conversation.note_added&limit=100', { token: alice })).body.events;
  expect(all.find((e: any) => e.id === event.id).data.text).toBe('');
});

test.concurrent('another user sees none of it, and bad input is a 400 naming the field', async () => {
  const { conversation: id } = await clientWithThread('inbox-private');
  expectProblem(await conversation(id, '', bob), 404, 'Conversation not found');
  expect((await stack.api('GET', '/conversations', { token: bob })).body.conversations).toEqual([]);
  const until = new Date(Date.now() + 60_000).toISOString();
  for (const [path, body] of [['snooze', { until }], ['close', {}], ['reopen', {}]] as const) expectProblem(await stack.api('POST', `/conversations/${id}/${path}`, { token: bob, body }), 404, 'Conversation not found');
  expectProblem(await stack.api('POST', `/conversations/${id}/notes`, { token: bob, body: { agent: 'a1', text: 'x' } }), 404, 'Conversation not found');
  expectProblem(await conversation('not-a-uuid'), 404, 'Conversation not found');

  expectProblem(await stack.api('POST', `/conversations/${id}/snooze`, { token: alice, body: {} }), 400, 'Invalid until: is required: the date-time the conversation opens again');
  expectProblem(await stack.api('POST', `/conversations/${id}/snooze`, { token: alice, body: { until: '2020-01-01T00:00:00Z' } }), 400, 'Invalid until: must be in the future');
  expectProblem(await stack.api('POST', `/conversations/${id}/snooze`, { token: alice, body: { until: 'tomorrow' } }), 400, 'Invalid until: must be an ISO 8601 date-time with a zone, such as 2030-01-01T09:00:00Z');
  expectProblem(await stack.api('POST', `/conversations/${id}/notes`, { token: alice, body: { agent: 'a1', text: '  ' } }), 400, 'Invalid text: must not be empty');
  expectProblem(await stack.api('GET', '/conversations?status=pending', { token: alice }), 400, /^Invalid status: /);
  expectProblem(await stack.api('GET', '/conversations?cursor=nonsense', { token: alice }), 400, 'Invalid cursor: pass next_cursor from the previous page');
  expectProblem(await stack.api('GET', '/conversations?agent=ghost', { token: alice }), 404, 'Agent not found');
});

test.concurrent('lists page through every conversation once', async () => {
  const token = stack.token(uniqueName('pager'));
  for (let i = 0; i < 5; i++) {
    const phone = newPhone();
    await stack.api('POST', '/clients', { token, body: { _id: `p${i}`, phone } });
    expect((await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: `p${i}`, text_message: 'hi' } })).status).toBe(202);
  }
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await stack.api('GET', `/conversations?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token });
    seen.push(...page.body.conversations.map((c: any) => c.client));
    cursor = page.body.next_cursor;
  } while (cursor);
  expect(seen).toEqual(['p4', 'p3', 'p2', 'p1', 'p0']);
});
