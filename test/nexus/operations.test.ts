import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { crmProblemOf, messageFailureOf } from '../../src/nexus/contract';
import { ActivityFailureType } from '../../src/domain';
import type { Call, CallOutcome } from '../support/nexus-caller-workflows';
import { startNexusCaller, type NexusCaller } from '../support/nexus';
import { eventually, startTestStack, uniqueName, type ApiResponse, type TestStack } from '../support/stack';
import { INVALID_BUSINESS } from '../../src/use-cases/input/validation';

/*
 * Another team's workflow, in a second namespace, calls the CRM through a real Nexus endpoint. Every
 * operation must answer as its HTTP route does for the same input: the same output, and for a
 * rejection the same problem type, status and detail, as a failure the caller never retries.
 */

let stack: TestStack;
let caller: NexusCaller;
let token: string;
const user = 'user-1';
const other = 'user-2';

/** The phone the test provider refuses, as a carrier refuses an invalid number. */
const REFUSED_PHONE = '+14155550166';

beforeAll(async () => {
  stack = await startTestStack({
    provider: {
      name: 'log',
      async deliver(message) {
        if (message.to === REFUSED_PHONE) throw ApplicationFailure.create({ type: ActivityFailureType.ProviderRejected, message: 'The recipient number is not a valid phone number', nonRetryable: true, details: [{ code: '21211', optOut: false }] });
        return { providerRef: `log:${message.id}` };
      },
    },
  });
  caller = await startNexusCaller({ taskQueue: stack.taskQueue });
  token = stack.token(user);
  const otherToken = stack.token(other);
  for (const body of [{ _id: 'c1', phone: '+14155550100' }, { _id: 'c2' }, { _id: 'c3', phone: '+14155550103' }]) {
    expect((await stack.api('POST', '/clients', { token, body })).status).toBe(201);
  }
  for (const id of ['a1', 'a2', 'a3']) expect((await stack.api('POST', '/agents', { token, body: { _id: id } })).status).toBe(201);
  expect((await stack.api('POST', '/clients', { token: otherToken, body: { _id: 'cx', phone: '+14155550199' } })).status).toBe(201);
  expect((await stack.api('POST', '/agents', { token: otherToken, body: { _id: 'ax' } })).status).toBe(201);
});

afterAll(async () => {
  await caller?.stop();
  await stack?.stop();
});

const as = (input: object, who = user) => ({ business: stack.business, user: who, ...input });

/** The run that holds a pair's clock, its client's: the readable ids, then the client's internal key (never the user id). */
async function expiryWorkflowId(client: string, _agent: string): Promise<string> {
  const { pk } = await stack.prisma.client.findUniqueOrThrow({ where: { business_ownerId_id_liveSlot: { business: stack.business, ownerId: user, id: client, liveSlot: true } } });
  return `client/${stack.business}/${client}/${pk}`;
}

function okOf(outcome: CallOutcome): any {
  if (!('ok' in outcome)) throw new Error(`the operation failed: ${JSON.stringify(outcome.failed)}`);
  return outcome.ok;
}

function problemOf(outcome: CallOutcome) {
  if (!('failed' in outcome)) return { unexpectedSuccess: outcome.ok };
  return outcome.failed.problem ?? { noProblem: outcome.failed.chain };
}

/** The HTTP answer's problem, which the operation must repeat exactly (`instance` names the HTTP request). */
function httpProblem(res: ApiResponse) {
  expect(res.status).toBeGreaterThanOrEqual(400);
  const { instance: _request, ...problem } = res.body;
  return problem;
}

/** Runs each case over HTTP and through Nexus, and expects the same problem from both. */
async function expectSameRejections(cases: { name: string; http: () => Promise<ApiResponse>; call: Call }[]) {
  const http: Record<string, unknown> = {};
  for (const c of cases) http[c.name] = httpProblem(await c.http());
  const outcomes = await caller.call(cases.map((c) => c.call));
  const nexus = Object.fromEntries(cases.map((c, i) => [c.name, problemOf(outcomes[i])]));
  expect(nexus).toEqual(http);
}

describe('assignAgents', () => {
  test('assigns as POST /clients/{_id}/assign-agents does, and the route lists the same assignments', async () => {
    const [outcome] = await caller.call([
      { operation: 'assignAgents', input: as({ client: 'c1', agents: [{ agent: 'a1', dt_until: '2031-01-01' }, { agent: 'a2' }], ds_notes: 'from a workflow' }) },
    ]);
    const expected = [
      { agent: 'a1', dt_until: '2031-01-01T00:00:00.000Z', status: 'active', workflow_id: await expiryWorkflowId('c1', 'a1') },
      { agent: 'a2', dt_until: '2143-06-23T00:00:00.000Z', status: 'active', workflow_id: await expiryWorkflowId('c1', 'a2') },
    ];
    expect(okOf(outcome)).toEqual({ client: 'c1', assignments: expected });

    const listed = await stack.api('GET', '/clients/c1/agents', { token });
    expect(listed.body.assignments).toEqual(expected.map((a) => expect.objectContaining({ ...a, ds_notes: 'from a workflow' })));
  });

  test('rejects every invalid request with the route’s problem, and assigns nothing', async () => {
    const assign = (name: string, client: string, body: object) => ({
      name,
      http: () => stack.api('POST', `/clients/${encodeURIComponent(client)}/assign-agents`, { token, body }),
      call: { operation: 'assignAgents' as const, input: as({ client, ...body }) },
    });
    const many = Array.from({ length: 101 }, (_, i) => ({ agent: `x${i}` }));
    await expectSameRejections([
      assign('no agents', 'c2', {}),
      assign('empty agents', 'c2', { agents: [] }),
      assign('agent without id', 'c2', { agents: [{ dt_until: '2031-01-01' }] }),
      assign('unreadable date', 'c2', { agents: [{ agent: 'a1', dt_until: 'next week' }] }),
      assign('past date', 'c2', { agents: [{ agent: 'a1', dt_until: '2001-01-01' }] }),
      assign('date an offset pushes past 9999', 'c2', { agents: [{ agent: 'a1', dt_until: '9999-12-31T23:59:59-14:00' }] }),
      assign('same agent twice', 'c2', { agents: [{ agent: 'a1' }, { agent: 'a1' }] }),
      assign('too many agents', 'c2', { agents: many }),
      assign('notes not a string', 'c2', { agents: [{ agent: 'a1' }], ds_notes: 42 }),
      assign('unknown client', 'nobody', { agents: [{ agent: 'a1' }] }),
      assign('impossible client id', 'no such client!', { agents: [{ agent: 'a1' }] }),
      assign('another user’s client', 'cx', { agents: [{ agent: 'a1' }] }),
      assign('unknown agent after a valid one', 'c2', { agents: [{ agent: 'a1' }, { agent: 'ghost' }] }),
      assign('another user’s agent', 'c2', { agents: [{ agent: 'ax' }] }),
    ]);
    expect((await stack.api('GET', '/clients/c2/agents?status=all', { token })).body.assignments).toEqual([]);
  });

  test('a rejection is a failed operation that is never retried, carrying the problem', async () => {
    const [outcome] = await caller.call([{ operation: 'assignAgents', input: as({ client: 'c2', agents: [{ agent: 'ghost' }] }) }]);
    expect('failed' in outcome && outcome.failed.chain).toEqual([
      expect.objectContaining({ name: 'NexusOperationFailure' }),
      expect.objectContaining({ name: 'ApplicationFailure', type: 'OperationError', nonRetryable: true, message: 'Agent ghost not found or not authorized' }),
      expect.objectContaining({ name: 'ApplicationFailure', type: '/problems/invalid-request', nonRetryable: true, message: 'Agent ghost not found or not authorized' }),
    ]);
    // An answer, not a crash: no stack trace of the CRM's code reaches the caller's history.
    expect(JSON.stringify('failed' in outcome && outcome.failed.chain.slice(1))).not.toMatch(/src\/|\.ts:/);
  });

  test('the example caller assigns the account owner for 30 days when a deal is won', async () => {
    const before = Date.now();
    const assignment = await caller.client.workflow.execute('dealWon', {
      taskQueue: caller.taskQueue,
      workflowId: uniqueName('deal-won'),
      args: [{ endpoint: caller.endpoint, business: stack.business, user, client: 'c3', accountOwner: 'a3' }],
    });
    expect(assignment).toEqual({ agent: 'a3', dt_until: expect.any(String), status: 'active', workflow_id: await expiryWorkflowId('c3', 'a3') });
    const days = (Date.parse(assignment.dt_until) - before) / 86_400_000;
    expect(days).toBeGreaterThanOrEqual(30);
    expect(days).toBeLessThan(30.01);

    const refused = caller.client.workflow.execute('dealWon', {
      taskQueue: caller.taskQueue,
      workflowId: uniqueName('deal-won'),
      args: [{ endpoint: caller.endpoint, business: stack.business, user, client: 'c3', accountOwner: 'ghost' }],
    });
    const error = await refused.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(crmProblemOf(error)).toEqual({ type: '/problems/invalid-request', title: 'Bad Request', status: 400, detail: 'Agent ghost not found or not authorized' });
  });
});

describe('unassignAgent and getAssignments', () => {
  test('unassigns as DELETE /clients/{_id}/agents/{agent} does', async () => {
    expect((await stack.api('POST', '/clients/c3/assign-agents', { token, body: { agents: [{ agent: 'a2' }] } })).status).toBe(200);
    const [outcome] = await caller.call([{ operation: 'unassignAgent', input: as({ client: 'c3', agent: 'a2' }) }]);
    expect(okOf(outcome)).toEqual({
      client: 'c3',
      agent: 'a2',
      dt_until: '2143-06-23T00:00:00.000Z',
      status: 'unassigned',
      ended_at: expect.any(String),
      ended_by: { actor: 'user', reason: 'api' },
      workflow_id: await expiryWorkflowId('c3', 'a2'),
    });
    const listed = await stack.api('GET', '/clients/c3/agents?status=all', { token });
    expect(listed.body.assignments).toContainEqual(
      expect.objectContaining({ agent: 'a2', status: 'unassigned', ended_at: okOf(outcome).ended_at, ended_by: { actor: 'user', reason: 'api' } }),
    );
  });

  test('lists as GET /clients/{_id}/agents does, without the notes', async () => {
    const [active, all] = await caller.call([
      { operation: 'getAssignments', input: as({ client: 'c1' }) },
      { operation: 'getAssignments', input: as({ client: 'c3', status: 'all' }) },
    ]);
    const withoutNotes = (res: ApiResponse) => ({ ...res.body, assignments: res.body.assignments.map(({ ds_notes: _, ...a }: any) => a) });
    expect(okOf(active)).toEqual(withoutNotes(await stack.api('GET', '/clients/c1/agents', { token })));
    expect(okOf(all)).toEqual(withoutNotes(await stack.api('GET', '/clients/c3/agents?status=all', { token })));
    expect(JSON.stringify(okOf(active))).not.toContain('from a workflow');
  });

  test('rejects as the routes do', async () => {
    /** DELETE …/clients/{client}/agents/{agent}, and the unassignAgent operation with the same input. */
    const unassignCase = (name: string, client: string, agent: string) => ({
      name,
      http: () => stack.api('DELETE', `/clients/${client}/agents/${agent}`, { token }),
      call: { operation: 'unassignAgent' as const, input: as({ client, agent }) },
    });
    await expectSameRejections([
      unassignCase('unassign an agent that is not assigned', 'c2', 'a2'),
      unassignCase('unassign on an unknown client', 'nobody', 'a1'),
      unassignCase('unassign on another user’s client', 'cx', 'ax'),
      {
        name: 'list with an unknown status filter',
        http: () => stack.api('GET', '/clients/c1/agents?status=expired', { token }),
        call: { operation: 'getAssignments', input: as({ client: 'c1', status: 'expired' }) },
      },
      {
        name: 'list an unknown client',
        http: () => stack.api('GET', '/clients/nobody/agents', { token }),
        call: { operation: 'getAssignments', input: as({ client: 'nobody' }) },
      },
    ]);
  });
});

describe('sendMessage and cancelMessage', () => {
  const findByText = async (text: string) =>
    (await stack.api('GET', '/messages?limit=100', { token })).body.messages.filter((m: any) => m.text_message === text);

  test('sends as POST /messages does, and the caller awaits the outcome', async () => {
    const text = `Welcome ${randomUUID()}`;
    const [outcome] = await caller.call([{ operation: 'sendMessage', input: as({ message_type: 'text', client: 'c1', text_message: text }) }]);
    expect(okOf(outcome)).toEqual({ outcome: 'sent' });
    expect(await findByText(text)).toEqual([expect.objectContaining({ status: 'sent', client: 'c1', client_phone: '+14155550100' })]);
  });

  test('a message that fails fails the operation for good, with its reason and code, and is not sent again', async () => {
    const text = `Refused ${randomUUID()}`;
    const input = as({ message_type: 'text', client_phone: REFUSED_PHONE, text_message: text, idempotency_key: `refused-${text}` });
    const [first] = await caller.call([{ operation: 'sendMessage', input }]);
    const [message] = await findByText(text);
    expect(message).toEqual(expect.objectContaining({ status: 'failed', error_code: '21211' }));
    const failure = { messageId: message._id, outcome: 'failed', reason: 'The recipient number is not a valid phone number', code: '21211' };
    expect(first).toEqual({ failed: expect.objectContaining({ chain: expect.arrayContaining([expect.objectContaining({ type: 'MessageFailed', nonRetryable: true, message: `Message ${message._id} failed: The recipient number is not a valid phone number (error 21211)` })]) }) });
    // A repeat of the operation fails alike at once, and nothing is sent twice.
    const [again] = await caller.call([{ operation: 'sendMessage', input }]);
    expect(again).toEqual({ failed: expect.objectContaining({ chain: expect.arrayContaining([expect.objectContaining({ type: 'MessageFailed', nonRetryable: true })]) }) });
    expect(await findByText(text)).toHaveLength(1);
    expect((await stack.temporal.workflow.getHandle(message.workflow_id).describe()).status.name).toBe('FAILED');
    expect(JSON.stringify(first)).not.toContain(REFUSED_PHONE);
    // The contract's helper finds the detail along a caller's cause chain.
    expect(messageFailureOf({ cause: { type: 'MessageFailed', details: [failure] } })).toEqual(failure);
    expect(messageFailureOf(new Error('other'))).toBeUndefined();
  });

  test('takes send_window as POST /messages does: a message due inside its window is sent and shows it', async () => {
    const text = `Windowed ${randomUUID()}`;
    const hhmm = (at: number) => new Date(at).toISOString().slice(11, 16);
    const sendWindow = { from: hhmm(Date.now() - 3_600_000), to: hhmm(Date.now() + 3_600_000), timezone: 'UTC' };
    const [outcome] = await caller.call([{ operation: 'sendMessage', input: as({ message_type: 'text', client: 'c1', text_message: text, send_window: sendWindow }) }]);
    expect(okOf(outcome)).toEqual({ outcome: 'sent' });
    expect(await findByText(text)).toEqual([expect.objectContaining({ status: 'sent', send_window: sendWindow, deferred_until: null })]);
  });

  test('an Idempotency-Key already used over HTTP returns that message’s outcome and sends nothing again', async () => {
    const text = `Once ${randomUUID()}`;
    const body = { message_type: 'text', client: 'c1', text_message: text };
    const sentNow = await stack.api('POST', '/messages', { token, body, headers: { 'Idempotency-Key': `k-${text}` } });
    const later = await stack.api('POST', '/messages', { token, body: { ...body, delay: '2s' }, headers: { 'Idempotency-Key': `k2-${text}` } });
    await eventually(async () => (await stack.api('GET', `/messages/${sentNow.body._id}`, { token })).body.status === 'sent');

    const [done, pending] = await caller.call([
      { operation: 'sendMessage', input: as({ ...body, idempotency_key: `k-${text}` }) },
      { operation: 'sendMessage', input: as({ ...body, delay: '2s', idempotency_key: `k2-${text}` }) },
    ]);
    expect(okOf(done)).toEqual({ outcome: 'sent' });
    // Still scheduled when the operation started: it joined the message's workflow and waited for it.
    expect(okOf(pending)).toEqual({ outcome: 'sent' });
    expect((await findByText(text)).map((m: any) => m._id).sort()).toEqual([sentNow.body._id, later.body._id].sort());
  });

  test('rejects every invalid message with the route’s problem', async () => {
    const key = `used-${randomUUID()}`;
    await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'First' }, headers: { 'Idempotency-Key': key } });
    const send = (name: string, body: object, idempotencyKey?: string) => ({
      name,
      http: () => stack.api('POST', '/messages', { token, body, headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {} }),
      call: { operation: 'sendMessage' as const, input: as({ ...body, ...(idempotencyKey ? { idempotency_key: idempotencyKey } : {}) }) },
    });
    await expectSameRejections([
      send('another message type', { message_type: 'fax', client: 'c1', text_message: 'Hi' }),
      send('neither client nor phone', { message_type: 'text', text_message: 'Hi' }),
      send('unknown client', { message_type: 'text', client: 'nobody', text_message: 'Hi' }),
      send('another user’s client', { message_type: 'text', client: 'cx', text_message: 'Hi' }),
      send('client without a phone', { message_type: 'text', client: 'c2', text_message: 'Hi' }),
      send('not a phone number', { message_type: 'text', client_phone: '12', text_message: 'Hi' }),
      send('empty text', { message_type: 'text', client: 'c1', text_message: '  ' }),
      send('text too long', { message_type: 'text', client: 'c1', text_message: 'x'.repeat(4097) }),
      send('unreadable delay', { message_type: 'text', client: 'c1', text_message: 'Hi', delay: 'soon' }),
      send('delay over ten years', { message_type: 'text', client: 'c1', text_message: 'Hi', delay: 'P11Y' }),
      send('a send window of equal times', { message_type: 'text', client: 'c1', text_message: 'Hi', send_window: { from: '08:00', to: '08:00', timezone: 'UTC' } }),
      send('a send window and a client without a timezone', { message_type: 'text', client: 'c1', text_message: 'Hi', send_window: { from: '08:00', to: '21:00' } }),
      send('key used for another message', { message_type: 'text', client: 'c1', text_message: 'Second' }, key),
      send('unprintable key', { message_type: 'text', client: 'c1', text_message: 'Hi' }, 'tab\there'),
    ]);
  });

  test('cancels as POST /messages/{_id}/cancel does, twice with the same answer', async () => {
    const scheduled = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Later', delay: '1h' } });
    const [first] = await caller.call([{ operation: 'cancelMessage', input: as({ message: scheduled.body._id }) }]);
    const [again] = await caller.call([{ operation: 'cancelMessage', input: as({ message: scheduled.body._id }) }]);
    const viaHttp = (await stack.api('GET', `/messages/${scheduled.body._id}`, { token })).body;
    const expected = { _id: viaHttp._id, status: 'canceled', send_at: viaHttp.send_at, canceled_at: viaHttp.canceled_at, canceled_by: viaHttp.canceled_by, workflow_id: viaHttp.workflow_id };
    expect(viaHttp.status).toBe('canceled');
    expect(viaHttp.canceled_by).toEqual({ actor: 'user', reason: 'api' });
    expect(okOf(first)).toEqual(expected);
    expect(okOf(again)).toEqual(expected);
    await expect(stack.temporal.workflow.getHandle(viaHttp.workflow_id).result()).rejects.toThrow(WorkflowFailedError);
    expect((await stack.temporal.workflow.getHandle(viaHttp.workflow_id).describe()).status.name).toBe('CANCELLED');
  });

  test('rejects a cancel as the route does', async () => {
    const sent = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Now' } });
    await eventually(async () => (await stack.api('GET', `/messages/${sent.body._id}`, { token })).body.status === 'sent');
    const others = await stack.api('POST', '/messages', { token: stack.token(other), body: { message_type: 'text', client: 'cx', text_message: 'Hi', delay: '1h' } });
    const cancel = (name: string, id: string) => ({
      name,
      http: () => stack.api('POST', `/messages/${encodeURIComponent(id)}/cancel`, { token }),
      call: { operation: 'cancelMessage' as const, input: as({ message: id }) },
    });
    await expectSameRejections([
      cancel('a message that has left', sent.body._id),
      cancel('an unknown message', randomUUID()),
      cancel('not a message id', 'not-a-message'),
      cancel('another user’s message', others.body._id),
    ]);
  });

  test('canceling the operation cancels a message that has not left', async () => {
    const text = `Cancel me ${randomUUID()}`;
    const outcome = await caller.client.workflow.execute('sendThenCancel', {
      taskQueue: caller.taskQueue,
      workflowId: uniqueName('send-then-cancel'),
      args: [caller.endpoint, as({ message_type: 'text', client: 'c1', text_message: text, delay: '1h' })],
    });
    const [message] = await findByText(text);
    expect(message.status).toBe('canceled');
    // The message's workflow ended as Canceled, and so did the operation the caller waited on.
    await expect(stack.temporal.workflow.getHandle(message.workflow_id).result()).rejects.toThrow(WorkflowFailedError);
    expect((await stack.temporal.workflow.getHandle(message.workflow_id).describe()).status.name).toBe('CANCELLED');
    expect(outcome).toEqual({ failed: expect.objectContaining({ chain: expect.arrayContaining([expect.objectContaining({ name: 'CancelledFailure' })]) }) });
  });
});

test('the business and user named in the input are held to the rules of the HTTP path and token', async () => {
  const outcomes = await caller.call([
    { operation: 'getAssignments', input: { business: 'no/such', user, client: 'c1' } },
    { operation: 'getAssignments', input: { business: '..', user, client: 'c1' } },
    { operation: 'getAssignments', input: { user, client: 'c1' } },
    { operation: 'getAssignments', input: { business: stack.business, user: '', client: 'c1' } },
    { operation: 'getAssignments', input: { business: stack.business, user: 'u'.repeat(201), client: 'c1' } },
    { operation: 'getAssignments', input: { business: stack.business, user, client: 7 } },
    { operation: 'getAssignments', input: as({ client: 'c1' }, other) },
  ]);
  const invalid = (detail: string) => ({ type: '/problems/invalid-request', title: 'Bad Request', status: 400, detail });
  expect(outcomes.map(problemOf)).toEqual([
    invalid(INVALID_BUSINESS),
    invalid(INVALID_BUSINESS),
    invalid(INVALID_BUSINESS),
    invalid('Invalid user: must be a string of 1-200 characters'),
    invalid('Invalid user: must be a string of 1-200 characters'),
    invalid('Invalid client: must be a string'),
    // Another user of the business does not see user-1's client.
    { type: '/problems/not-found', title: 'Not Found', status: 404, detail: 'Client not found' },
  ]);
});

describe('sendMessageBatch', () => {
  test('accepts as POST /messages/batch does: one result per recipient in order, the valid ones sent by the batch run', async () => {
    const text = `Campaign ${randomUUID()}`;
    const [outcome] = await caller.call([
      {
        operation: 'sendMessageBatch',
        input: as({ message_type: 'text', text_message: text, recipients: [{ client: 'c1' }, { client: 'c2' }, { client: 'cx' }, { client_phone: '+14155550177' }] }),
      },
    ]);
    const output = okOf(outcome);
    expect(output.results.map((r: any) => [r.index, r.status, r.error?.detail ?? null])).toEqual([
      [0, 'scheduled', null],
      [1, 'rejected', 'Client c2 has no phone number: send client_phone'],
      [2, 'rejected', 'Client not found'],
      [3, 'scheduled', null],
    ]);
    const view = await eventually(async () => {
      const b = (await stack.api('GET', `/messages/batch/${output.batch_id}`, { token })).body;
      return b.finished_at ? b : undefined;
    });
    expect(view.counts).toEqual(expect.objectContaining({ sent: 2 }));
  });

  test('none accepted: the same problem as the HTTP 400, with each recipient’s problem', async () => {
    const body = { message_type: 'text', text_message: 'Nobody', recipients: [{ client: 'cx' }, { client_phone: 'nope' }] };
    const http = await stack.api('POST', '/messages/batch', { token, body });
    const [outcome] = await caller.call([{ operation: 'sendMessageBatch', input: as(body) }]);
    expect(problemOf(outcome)).toEqual(httpProblem(http));
  });
});

describe('routeClient', () => {
  test('routes as POST /clients/{_id}/route does: the same use case, the same answers and refusals', async () => {
    const router = stack.token('router-user');
    for (const _id of ['r1', 'r2']) expect((await stack.api('POST', '/agents', { token: router, body: { _id } })).status).toBe(201);
    for (const _id of ['rc1', 'rc2', 'rc3']) expect((await stack.api('POST', '/clients', { token: router, body: { _id } })).status).toBe(201);
    expect((await stack.api('PUT', '/teams/t', { token: router, body: { members: [{ agent: 'r1' }, { agent: 'r2' }] } })).status).toBe(200);
    expect((await stack.api('PUT', '/routing-policies/p', { token: router, body: { team: 't', capacity: 1 } })).status).toBe(200);
    const asRouter = (input: object) => as(input, 'router-user');

    const [first, again] = await caller.call([
      { operation: 'routeClient', input: asRouter({ client: 'rc1', policy: 'p', idempotency_key: 'lead-1' }) },
      { operation: 'routeClient', input: asRouter({ client: 'rc1', policy: 'p', idempotency_key: 'lead-1' }) },
    ]);
    expect(okOf(first)).toEqual({ decision_id: expect.any(String), status: 'assigned', agent: 'r1', dt_until: '2143-06-23T00:00:00.000Z' });
    expect(okOf(again)).toEqual(okOf(first));
    const http = await stack.api('POST', '/clients/rc2/route', { token: router, body: { policy: 'p' } });
    expect(http.body).toMatchObject({ status: 'assigned', agent: 'r2' });
    const [queued] = await caller.call([{ operation: 'routeClient', input: asRouter({ client: 'rc3', policy: 'p' }) }]);
    expect(okOf(queued)).toEqual({ decision_id: expect.any(String), status: 'queued', position: 1 });

    await expectSameRejections([
      { name: 'unknown policy', http: () => stack.api('POST', '/clients/rc1/route', { token: router, body: { policy: 'nope' } }), call: { operation: 'routeClient', input: asRouter({ client: 'rc1', policy: 'nope' }) } },
      { name: 'unknown client', http: () => stack.api('POST', '/clients/ghost/route', { token: router, body: { policy: 'p' } }), call: { operation: 'routeClient', input: asRouter({ client: 'ghost', policy: 'p' }) } },
      { name: 'another user\'s client', http: () => stack.api('POST', '/clients/cx/route', { token: router, body: { policy: 'p' } }), call: { operation: 'routeClient', input: asRouter({ client: 'cx', policy: 'p' }) } },
    ]);
  });
});

test('a field an operation does not know is refused as the route refuses it in a body (issue 48), and nothing is done', async () => {
  const message = { message_type: 'text', client: 'c1', text_message: 'Typo' };
  await expectSameRejections([
    {
      name: 'assignAgents',
      http: () => stack.api('POST', '/clients/c2/assign-agents', { token, body: { agents: [{ agent: 'a1', role: 'lead' }] } }),
      call: { operation: 'assignAgents', input: as({ client: 'c2', agents: [{ agent: 'a1', role: 'lead' }] }) },
    },
    { name: 'sendMessage', http: () => stack.api('POST', '/messages', { token, body: { ...message, sendAt: '2030-01-01T00:00:00Z' } }), call: { operation: 'sendMessage', input: as({ ...message, sendAt: '2030-01-01T00:00:00Z' }) } },
    {
      name: 'sendMessageBatch',
      http: () => stack.api('POST', '/messages/batch', { token, body: { message_type: 'text', text_message: 'Hi', recipients: [{ client: 'c1', nmae: 'x' }] } }),
      call: { operation: 'sendMessageBatch', input: as({ message_type: 'text', text_message: 'Hi', recipients: [{ client: 'c1', nmae: 'x' }] }) },
    },
  ]);
  const outcomes = await caller.call([
    { operation: 'getAssignments', input: as({ client: 'c1', state: 'all' }) },
    { operation: 'unassignAgent', input: as({ client: 'c1', agent: 'a1', reason: 'x' }) },
    { operation: 'cancelMessage', input: as({ message: randomUUID(), reason: 'x' }) },
  ]);
  expect(outcomes.map((o) => (problemOf(o) as { detail?: string }).detail)).toEqual(['Unknown field: state', 'Unknown field: reason', 'Unknown field: reason']);
  expect((await stack.api('GET', '/clients/c2/agents?status=all', { token })).body.assignments).toEqual([]);
});
