import { randomUUID } from 'node:crypto';
import { expectProblem, eventually } from '../../support/helpers';
import { clientWorkflowId, RECONCILE_WORKFLOW, type ClientRunState, type ReconcileResult } from '../../../src/domain';
import { tellClientRun } from '../../../src/starters/client-workflow';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';
import { untilListedEnded } from '../../support/listed-ended';

/*
 * Section 5 of issue 31 on the real stack: a durable first-response clock per routed decision. The
 * test stack lowers the 10-second floor to 1 s (as rotations' minimum period), so the clock runs out
 * within the test; the margins allow a loaded machine.
 */

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ routingMinFirstResponseMs: 1000 });
});
afterAll(() => stack.stop());

async function setUp(agents: string[], policy: Record<string, unknown>) {
  const token = stack.token(`user-${randomUUID()}`);
  for (const a of agents) expect((await stack.api('POST', '/agents', { token, body: { _id: a } })).status).toBe(201);
  expect((await stack.api('PUT', '/teams/sales', { token, body: { members: agents.map((agent) => ({ agent })) } })).status).toBe(200);
  const put = await stack.api('PUT', '/routing-policies/sales', { token, body: { team: 'sales', ...policy } });
  expect(put.status).toBe(200);
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c1', phone: '+14155550101' } })).status).toBe(201);
  return token;
}

/** The client's run, which holds the decision's first-response clock. */
async function clientRunOf(decisionId: string) {
  const { clientPk } = await stack.prisma.routingDecision.findUniqueOrThrow({ where: { id: decisionId } });
  return stack.temporal.workflow.getHandle(clientWorkflowId({ business: stack.business, clientId: 'c1', clientPk }));
}

/**
 * Waits until the client's run holds no clock for the decision: the run alone reassigns and escalates, so
 * from then on nothing will (rather than waiting past the deadline to see nothing happen).
 */
async function runDroppedTheClock(decisionId: string) {
  const handle = await clientRunOf(decisionId);
  await eventually(async () => (await handle.query<ClientRunState>('state')).firstResponses.length === 0, 30_000);
}

const decision = async (token: string, id: string) => (await stack.api('GET', `/routing-decisions/${id}`, { token })).body;
const assignments = async (token: string) => (await stack.api('GET', '/clients/c1/agents?status=all', { token })).body.assignments as { agent: string; status: string; ended_by: unknown }[];

test('a policy states first_response_within and max_reassignments; a time under the floor is refused', async () => {
  const token = await setUp(['a1'], { first_response_within: 'PT15M', max_reassignments: 2 });
  expect((await stack.api('GET', '/routing-policies/sales', { token })).body).toMatchObject({ first_response_within: 'PT15M', max_reassignments: 2, version: 1 });
  expectProblem(await stack.api('PUT', '/routing-policies/p', { token, body: { team: 'sales', first_response_within: 'PT0.5S' } }), 400, /^Invalid first_response_within: /);
  expectProblem(await stack.api('PUT', '/routing-policies/p', { token, body: { team: 'sales', max_reassignments: 1 } }), 400, 'Invalid max_reassignments: needs first_response_within');
});

test('an unanswered client goes to another member, then, after the last reassignment, stays with its owner and is escalated', async () => {
  const token = await setUp(['a1', 'a2', 'a3'], { first_response_within: 'PT2S', max_reassignments: 1 });
  const routed = await stack.api('POST', '/clients/c1/route', { token, body: { policy: 'sales' } });
  expect(routed.body).toMatchObject({ status: 'assigned', agent: 'a1' });
  const id = routed.body.decision_id;

  const moved = await eventually(async () => ((await decision(token, id)).reassignments === 1 ? decision(token, id) : null), 30_000);
  expect(moved).toMatchObject({ status: 'assigned', agent: 'a2', answered_at: null, escalated_at: null });
  const held = await assignments(token);
  expect(held).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ agent: 'a1', status: 'unassigned', ended_by: { actor: 'system', reason: 'routing' } }),
      expect.objectContaining({ agent: 'a2', status: 'active' }),
    ]),
  );

  const escalated = await eventually(async () => ((await decision(token, id)).escalated_at ? decision(token, id) : null), 30_000);
  expect(escalated).toMatchObject({ agent: 'a2', reassignments: 1 });
  expect((await assignments(token)).filter((a) => a.status === 'active').map((a) => a.agent)).toEqual(['a2']);
  const reassigned = (await stack.api('GET', '/events?type=routing.reassigned&client=c1', { token })).body.events;
  expect(reassigned).toEqual([expect.objectContaining({ data: expect.objectContaining({ decision_id: id, agent: 'a2', previous_agent: 'a1' }) })]);
  const escalations = (await stack.api('GET', '/events?type=routing.escalated&client=c1', { token })).body.events;
  expect(escalations).toEqual([expect.objectContaining({ data: expect.objectContaining({ decision_id: id, agent: 'a2' }) })]);
});

test('with nobody else eligible the owner keeps the client and the decision is escalated', async () => {
  const token = await setUp(['a1', 'a2'], { first_response_within: 'PT1S', max_reassignments: 3 });
  await stack.api('PATCH', '/agents/a2', { token, body: { presence: 'away' } });
  const id = (await stack.api('POST', '/clients/c1/route', { token, body: { policy: 'sales' } })).body.decision_id;
  const escalated = await eventually(async () => ((await decision(token, id)).escalated_at ? decision(token, id) : null), 30_000);
  expect(escalated).toMatchObject({ agent: 'a1', reassignments: 0 });
  expect((await assignments(token)).map((a) => [a.agent, a.status])).toEqual([['a1', 'active']]);
});

test('with working_hours the clock runs only inside the owner\'s hours: an owner off shift is not reassigned, and the deadline moves to its next shift', async () => {
  const token = await setUp(['a1', 'a2'], { first_response_within: 'PT3S', max_reassignments: 1 });
  const routed = await stack.api('POST', '/clients/c1/route', { token, body: { policy: 'sales' } });
  expect(routed.body.agent).toBe('a1');
  const routedAt = Date.now();
  // a1 goes off shift at once: its only hours are one minute, three days from now.
  const now = new Date();
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 3, 3, 0, 0));
  const weekday = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'][day.getUTCDay()];
  expect((await stack.api('PATCH', '/agents/a1', { token, body: { timezone: 'UTC', working_hours: { [weekday]: [['03:00', '03:01']] } } })).status).toBe(200);

  // The run sleeps until the shift's start plus the clock's 3 s: no working time has passed since.
  const handle = await clientRunOf(routed.body.decision_id);
  const due = new Date(day.getTime() + 3_000).toISOString();
  await eventually(async () => String((await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails).includes(`must answer by ${due}`), 15_000, 200);
  // Past the 3 s the clock would have run on a wall clock (the run's state above is what it sleeps on).
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, routedAt + 4_000 - Date.now())));
  expect(await decision(token, routed.body.decision_id)).toMatchObject({ agent: 'a1', reassignments: 0, escalated_at: null });
  expect((await assignments(token)).map((a) => [a.agent, a.status])).toEqual([['a1', 'active']]);
  expect((await handle.describe()).status.name).toBe('RUNNING');
  expect((await handle.query<ClientRunState>('state')).firstResponses).toEqual([{ decisionId: routed.body.decision_id, dueAt: due }]);
});

test('a message naming the owner answers: the client is not reassigned', async () => {
  const token = await setUp(['a1', 'a2'], { first_response_within: 'PT3S', max_reassignments: 1 });
  const id = (await stack.api('POST', '/clients/c1/route', { token, body: { policy: 'sales' } })).body.decision_id;
  const sent = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Hi, this is your rep', agent: 'a1' } });
  expect(sent.status).toBeLessThan(300);
  expect((await decision(token, id)).answered_at).toEqual(expect.any(String));
  await runDroppedTheClock(id);
  expect(await decision(token, id)).toMatchObject({ agent: 'a1', reassignments: 0, escalated_at: null });
  expect((await assignments(token)).map((a) => [a.agent, a.status])).toEqual([['a1', 'active']]);
});

test('accept answers for the owner; another user\'s decision is a 404 and another user\'s agent on a message a 400', async () => {
  const token = await setUp(['a1', 'a2'], { first_response_within: 'PT3S', max_reassignments: 1 });
  const id = (await stack.api('POST', '/clients/c1/route', { token, body: { policy: 'sales' } })).body.decision_id;
  const accepted = await stack.api('POST', `/routing-decisions/${id}/accept`, { token });
  expect(accepted.status).toBe(200);
  expect(accepted.body).toMatchObject({ decision_id: id, agent: 'a1', answered_at: expect.any(String) });
  await runDroppedTheClock(id);
  expect(await decision(token, id)).toMatchObject({ agent: 'a1', reassignments: 0, escalated_at: null });

  const bob = await setUp(['b1'], {});
  expectProblem(await stack.api('POST', `/routing-decisions/${id}/accept`, { token: bob }), 404, 'Routing decision not found');
  expectProblem(await stack.api('POST', '/messages', { token: bob, body: { message_type: 'text', client: 'c1', text_message: 'Hi', agent: 'a1' } }), 400, 'Agent a1 not found or not authorized');
  const batch = await stack.api('POST', '/messages/batch', { token: bob, body: { message_type: 'text', text_message: 'Hi', recipients: [{ client: 'c1', agent: 'a1' }] } });
  expect(batch.status).toBe(400);
  expect(JSON.stringify(batch.body)).toContain('Agent a1 not found or not authorized');
});

test('a client the queue assigns gets the clock too', async () => {
  const token = await setUp(['a1', 'a2'], { capacity: 1, first_response_within: 'PT2S', max_reassignments: 1 });
  for (const _id of ['c2', 'c3']) expect((await stack.api('POST', '/clients', { token, body: { _id } })).status).toBe(201);
  // Both answer at once, so only the queued client's clock runs out.
  for (const [c, a] of [['c1', 'a1'], ['c2', 'a2']]) {
    const routed = await stack.api('POST', `/clients/${c}/route`, { token, body: { policy: 'sales' } });
    expect(routed.body.agent).toBe(a);
    expect((await stack.api('POST', `/routing-decisions/${routed.body.decision_id}/accept`, { token })).status).toBe(200);
  }
  const waiting = await stack.api('POST', '/clients/c3/route', { token, body: { policy: 'sales' } });
  expect(waiting.status).toBe(202);
  expect((await stack.api('DELETE', '/clients/c1/agents/a1', { token })).status).toBe(200);
  const id = waiting.body.decision_id;
  await eventually(async () => (await decision(token, id)).agent === 'a1');
  // a2 is at capacity: nobody else is eligible, so a1 keeps c3 and the decision is escalated.
  const escalated = await eventually(async () => ((await decision(token, id)).escalated_at ? decision(token, id) : null), 30_000);
  expect(escalated).toMatchObject({ agent: 'a1', reassignments: 0 });
});

test('a clock an operator terminated is given back by the reconciler; an answered one is not', async () => {
  const token = await setUp(['a1', 'a2'], { first_response_within: 'PT1H' });
  const id = (await stack.api('POST', '/clients/c1/route', { token, body: { policy: 'sales' } })).body.decision_id;
  const handle = await clientRunOf(id);
  await eventually(async () => (await handle.query<ClientRunState>('state')).firstResponses.length === 1);
  await handle.terminate('operator test');
  await untilListedEnded(stack.temporal, handle.workflowId);
  const reconcile = (): Promise<ReconcileResult> =>
    stack.temporal.workflow.execute(RECONCILE_WORKFLOW, { taskQueue: stack.taskQueue, workflowId: uniqueName('reconcile'), args: [{ graceMs: 0, business: stack.business }] });
  expect(await reconcile()).toMatchObject({ firstResponseClocksRestarted: 1 });
  expect((await handle.describe()).status.name).toBe('RUNNING');
  expect(await reconcile()).toMatchObject({ firstResponseClocksRestarted: 0 });

  await eventually(async () => (await handle.query<ClientRunState>('state')).firstResponses[0]?.decisionId === id);

  await stack.api('POST', `/routing-decisions/${id}/accept`, { token });
  await eventually(async () => (await handle.query<ClientRunState>('state')).firstResponses.length === 0);
  expect(await reconcile()).toMatchObject({ firstResponseClocksRestarted: 0 });
});

test('a clock that a run from before one run per client held is taken over by the client\'s run, and still runs out', async () => {
  const token = await setUp(['a1', 'a2'], { first_response_within: 'PT1H', max_reassignments: 1 });
  const id = (await stack.api('POST', '/clients/c1/route', { token, body: { policy: 'sales' } })).body.decision_id;
  const handle = await clientRunOf(id);
  await eventually(async () => (await handle.query<ClientRunState>('state')).firstResponses.length === 1);
  // The row as data from before names the run that held its clock; the policy's time is now short.
  const { clientPk } = await stack.prisma.routingDecision.update({ where: { id }, data: { clockWorkflowId: `routing-first-response/${stack.business}/${id}` } });
  await stack.prisma.$executeRaw`UPDATE routing_decisions SET decided_at = now() - interval '2 hours' WHERE id = ${id}::uuid`;
  await tellClientRun(stack.temporal, { business: stack.business, clientId: 'c1', clientPk }, ['firstResponses']);

  const moved = await eventually(async () => ((await decision(token, id)).reassignments === 1 ? decision(token, id) : null), 30_000);
  expect(moved).toMatchObject({ status: 'assigned', agent: 'a2' });
  expect((await stack.prisma.routingDecision.findUniqueOrThrow({ where: { id } })).clockWorkflowId).toBeNull();
});
