import { randomUUID } from 'node:crypto';
import { expectProblem, eventually } from '../../support/helpers';
import { RECONCILE_WORKFLOW, routingQueueWorkflowId, type ReconcileResult } from '../../../src/domain';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const newUser = () => stack.token(`user-${randomUUID()}`);

/** A user with `agents`, a team of them in that order, and a policy over it. */
async function setUp(agents: string[], policy: Record<string, unknown> = {}, weights: Record<string, number> = {}) {
  const token = newUser();
  for (const a of agents) expect((await stack.api('POST', '/agents', { token, body: { _id: a } })).status).toBe(201);
  const team = await stack.api('PUT', '/teams/sales', { token, body: { name: 'Sales', members: agents.map((agent) => ({ agent, ...(weights[agent] && { weight: weights[agent] }) })) } });
  expect(team.status).toBe(200);
  const put = await stack.api('PUT', '/routing-policies/sales', { token, body: { team: 'sales', ...policy } });
  expect(put.status).toBe(200);
  return token;
}

async function newClients(token: string, n: number, prefix = 'c'): Promise<string[]> {
  const ids = Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);
  for (const _id of ids) expect((await stack.api('POST', '/clients', { token, body: { _id } })).status).toBe(201);
  return ids;
}

const route = (token: string, client: string, body: Record<string, unknown> = { policy: 'sales' }, headers: Record<string, string> = {}) =>
  stack.api('POST', `/clients/${client}/route`, { token, body, headers });

describe('teams and routing policies', () => {
  test('PUT answers the team and the policy; a change is a new version, the same settings again are not', async () => {
    const token = await setUp(['a1', 'a2'], { capacity: 2 });
    expect((await stack.api('GET', '/teams/sales', { token })).body).toMatchObject({ _id: 'sales', name: 'Sales', members: [{ agent: 'a1', weight: 1 }, { agent: 'a2', weight: 1 }] });
    expect((await stack.api('GET', '/teams', { token })).body.teams).toHaveLength(1);
    const policy = (await stack.api('GET', '/routing-policies/sales', { token })).body;
    expect(policy).toMatchObject({ _id: 'sales', version: 1, team: 'sales', strategy: 'round_robin', capacity: 2, working_hours: true, sticky: false, when_none_eligible: 'queue', assignment_duration: null });
    expect((await stack.api('PUT', '/routing-policies/sales', { token, body: { team: 'sales', capacity: 2 } })).body.version).toBe(1);
    expect((await stack.api('PUT', '/routing-policies/sales', { token, body: { team: 'sales', capacity: 3 } })).body.version).toBe(2);
    expect((await stack.api('GET', '/routing-policies', { token })).body.routing_policies.map((p: { version: number }) => p.version)).toEqual([2]);
  });

  test('another user\'s team, policy and agents are not the caller\'s', async () => {
    const alice = await setUp(['a1']);
    const bob = newUser();
    expectProblem(await stack.api('GET', '/teams/sales', { token: bob }), 404, 'Team not found');
    expectProblem(await stack.api('GET', '/routing-policies/sales', { token: bob }), 404, 'Routing policy not found');
    expectProblem(await stack.api('PUT', '/teams/t', { token: bob, body: { members: [{ agent: 'a1' }] } }), 400, 'Agent a1 not found or not authorized');
    expectProblem(await stack.api('PUT', '/routing-policies/p', { token: bob, body: { team: 'sales' } }), 400, 'Team sales not found or not authorized');
    await stack.api('POST', '/clients', { token: bob, body: { _id: 'c1' } });
    expectProblem(await route(bob, 'c1'), 404, 'Routing policy not found');
    expect((await stack.api('GET', '/routing-policies/sales', { token: alice })).status).toBe(200);
  });

  test.each([
    [{ members: [{ agent: 'a1' }, { agent: 'a1' }] }, 'Duplicate agent a1 in members', 'teams'],
    [{ members: [{ agent: 'a1', weight: 0 }] }, /^Invalid members\.0\.weight: /, 'teams'],
    [{ team: 'sales', strategy: 'random' }, /^Invalid strategy: /, 'routing-policies'],
    [{ team: 'sales', assignment_duration: 'two weeks' }, /^Invalid assignment_duration: /, 'routing-policies'],
    [{ team: 'sales', first_response_within: 'PT9S' }, 'Invalid first_response_within: must be an ISO 8601 duration such as P14D or PT8H, at least 10 seconds and at most 10 years', 'routing-policies'],
    [{ team: 'sales', route_unowned_replies: 'yes' }, /^Invalid route_unowned_replies: /, 'routing-policies'],
    [{ team: 'sales', max_reassignments: -1 }, /^Invalid max_reassignments: /, 'routing-policies'],
  ])('refuses %j with a 400', async (body, detail, resource) => {
    const token = await setUp(['a1']);
    expectProblem(await stack.api('PUT', `/${resource}/other`, { token, body }), 400, detail);
    expectProblem(await stack.api('GET', `/${resource}/other`, { token }), 404);
  });
});

describe('POST /clients/{_id}/route', () => {
  test('round robin over three agents: counts differ by at most one; the assignment is an ordinary one carrying routed_by', async () => {
    const token = await setUp(['a1', 'a2', 'a3'], { assignment_duration: 'P14D' });
    const clients = await newClients(token, 10);
    const picked: string[] = [];
    for (const c of clients) {
      const res = await route(token, c, { policy: 'sales', notes: 'inbound lead' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ decision_id: expect.any(String), status: 'assigned', agent: expect.any(String), dt_until: expect.any(String) });
      expect(Math.abs(Date.parse(res.body.dt_until) - Date.now() - 14 * 86_400_000)).toBeLessThan(60_000);
      picked.push(res.body.agent);
    }
    expect(picked.slice(0, 6)).toEqual(['a1', 'a2', 'a3', 'a1', 'a2', 'a3']);
    const counts = ['a1', 'a2', 'a3'].map((a) => picked.filter((p) => p === a).length);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);

    const first = await route(token, 'c1');
    const listed = (await stack.api('GET', '/clients/c1/agents', { token })).body.assignments;
    expect(listed).toEqual([expect.objectContaining({ agent: 'a1', status: 'active', ds_notes: 'inbound lead', routed_by: { policy: 'sales', version: 1, decision_id: first.body.decision_id } })]);
    expect((await stack.api('GET', '/agents/a1', { token })).body.load).toBe(4);
    const created = (await stack.api('GET', '/events?type=assignment.created&client=c1', { token })).body.events;
    expect(created[0].data.routed_by).toEqual({ policy: 'sales', version: 1, decision_id: first.body.decision_id });
    const assigned = (await stack.api('GET', '/events?type=routing.assigned&client=c1', { token })).body.events;
    expect(assigned).toEqual([expect.objectContaining({ type: 'routing.assigned', data: expect.objectContaining({ decision_id: first.body.decision_id, agent: 'a1', reason: 'api' }) })]);
  });

  test('an away agent and one outside its hours are never picked, and the decision says why', async () => {
    const token = await setUp(['away', 'night', 'on']);
    await stack.api('PATCH', '/agents/away', { token, body: { presence: 'away' } });
    // A shift that is never now: the minute a day before.
    const now = new Date();
    const day = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'][(now.getUTCDay() + 3) % 7];
    await stack.api('PATCH', '/agents/night', { token, body: { timezone: 'UTC', working_hours: { [day]: [['03:00', '03:01']] } } });
    await newClients(token, 4);
    for (const c of ['c1', 'c2', 'c3', 'c4']) expect((await route(token, c)).body.agent).toBe('on');
    const res = await route(token, 'c4');
    const decision = (await stack.api('GET', `/routing-decisions/${res.body.decision_id}`, { token })).body;
    expect(decision).toEqual({
      decision_id: res.body.decision_id,
      policy: 'sales',
      version: 1,
      client: 'c4',
      status: 'assigned',
      agent: 'on',
      dt_until: '2143-06-23T00:00:00.000Z',
      queued_at: null,
      decided_at: expect.any(String),
      answered_at: null,
      reassignments: 0,
      escalated_at: null,
      candidates: [
        { agent: 'away', eligible: false, reasons: ['away'], load: 0, capacity: null },
        { agent: 'night', eligible: false, reasons: ['outside_working_hours'], load: 0, capacity: null },
        { agent: 'on', eligible: true, reasons: [], load: 3, capacity: null },
      ],
    });
    expectProblem(await stack.api('GET', `/routing-decisions/${res.body.decision_id}`, { token: newUser() }), 404, 'Routing decision not found');
  });

  test('the same Idempotency-Key gives the same decision; another body with it is a 422; a repeated route gives no second owner', async () => {
    const token = await setUp(['a1', 'a2']);
    await newClients(token, 2);
    const first = await route(token, 'c1', { policy: 'sales' }, { 'Idempotency-Key': 'lead-1' });
    const again = await route(token, 'c1', { policy: 'sales' }, { 'Idempotency-Key': 'lead-1' });
    expect(again.body).toEqual(first.body);
    expectProblem(await route(token, 'c2', { policy: 'sales' }, { 'Idempotency-Key': 'lead-1' }), 422, 'Idempotency-Key was already used with a different request');
    const repeated = await route(token, 'c1');
    expect(repeated.status).toBe(200);
    expect(repeated.body).toEqual(first.body);
    expect((await stack.api('GET', '/clients/c1/agents', { token })).body.assignments).toHaveLength(1);
  });

  test('with nobody eligible, a reject policy answers 409 and records routing.no_eligible_agent', async () => {
    const token = await setUp(['a1'], { when_none_eligible: 'reject', capacity: 0 });
    await newClients(token, 1);
    expectProblem(await route(token, 'c1'), 409, 'No agent is available');
    const events = (await stack.api('GET', '/events?type=routing.no_eligible_agent', { token })).body.events;
    expect(events).toEqual([expect.objectContaining({ data: expect.objectContaining({ client: 'c1', status: 'rejected', candidates: [{ agent: 'a1', eligible: false, reasons: ['at_capacity'], load: 0, capacity: 0 }] }) })]);
    expect((await stack.api('GET', '/clients/c1/agents', { token })).body.assignments).toEqual([]);
  });
});

describe('the queue', () => {
  test('drains oldest first within 5 s of capacity freeing by an unassignment', async () => {
    const token = await setUp(['a1'], { capacity: 1 });
    await newClients(token, 3);
    expect((await route(token, 'c1')).status).toBe(200);
    expect((await route(token, 'c2')).body).toMatchObject({ status: 'queued', position: 1 });
    expect((await route(token, 'c3')).body).toMatchObject({ status: 'queued', position: 2 });
    expect((await route(token, 'c3')).body).toMatchObject({ status: 'queued', position: 2 });
    expect((await stack.api('GET', '/routing-policies/sales/queue', { token })).body.queue.map((q: { client: string }) => q.client)).toEqual(['c2', 'c3']);
    expect((await stack.api('GET', '/events?type=routing.queued', { token })).body.events.map((e: { data: { client: string } }) => e.data.client)).toEqual(['c2', 'c3']);

    const freed = Date.now();
    expect((await stack.api('DELETE', '/clients/c1/agents/a1', { token })).status).toBe(200);
    await eventually(async () => (await stack.api('GET', '/clients/c2/agents', { token })).body.assignments.length === 1, 5_000, 100);
    expect(Date.now() - freed).toBeLessThan(5_000);
    expect((await stack.api('GET', '/routing-policies/sales/queue', { token })).body.queue).toEqual([{ client: 'c3', position: 1, since: expect.any(String), decision_id: expect.any(String) }]);
    const assigned = (await stack.api('GET', '/events?type=routing.assigned&client=c2', { token })).body.events;
    expect(assigned).toEqual([expect.objectContaining({ data: expect.objectContaining({ agent: 'a1', status: 'assigned', reason: 'rule', queued_at: expect.any(String) }) })]);
  });

  test('drains when an agent comes back: presence available, an absence ended, an absence running out by itself', async () => {
    const token = await setUp(['a1']);
    await newClients(token, 3);
    await stack.api('PATCH', '/agents/a1', { token, body: { presence: 'away' } });
    expect((await route(token, 'c1')).status).toBe(202);
    await stack.api('PATCH', '/agents/a1', { token, body: { presence: 'available' } });
    await eventually(async () => (await stack.api('GET', '/clients/c1/agents', { token })).body.assignments.length === 1, 5_000, 100);

    const now = Date.now();
    const absence = await stack.api('POST', '/agents/a1/absences', { token, body: { from: new Date(now - 60_000).toISOString(), until: new Date(now + 3_600_000).toISOString() } });
    expect((await route(token, 'c2')).status).toBe(202);
    await stack.api('DELETE', `/agents/a1/absences/${absence.body._id}`, { token });
    await eventually(async () => (await stack.api('GET', '/clients/c2/agents', { token })).body.assignments.length === 1, 5_000, 100);

    // Long enough for the route below to find a1 absent; the drain then waits for it to run out.
    await stack.api('POST', '/agents/a1/absences', { token, body: { from: new Date(Date.now() - 60_000).toISOString(), until: new Date(Date.now() + 2_000).toISOString() } });
    const queued = await route(token, 'c3');
    expect(queued.status).toBe(202);
    expect((await stack.api('GET', `/routing-decisions/${queued.body.decision_id}`, { token })).body.candidates).toEqual([{ agent: 'a1', eligible: false, reasons: ['absent'], load: 2, capacity: null }]);
    await eventually(async () => (await stack.api('GET', '/clients/c3/agents', { token })).body.assignments.length === 1, 10_000, 200);
  });

  test('DELETE /clients/{_id}/route takes a waiting client out; it is then not assigned', async () => {
    const token = await setUp(['a1'], { capacity: 1 });
    await newClients(token, 3);
    await route(token, 'c1');
    const waiting = await route(token, 'c2');
    await route(token, 'c3');
    expect((await stack.api('DELETE', '/clients/c2/route', { token })).body).toEqual({ client: 'c2', canceled: [waiting.body.decision_id] });
    expectProblem(await stack.api('DELETE', '/clients/c2/route', { token }), 404, 'Client is not waiting in a routing queue');
    expect((await stack.api('GET', `/routing-decisions/${waiting.body.decision_id}`, { token })).body.status).toBe('canceled');
    await stack.api('DELETE', '/clients/c1/agents/a1', { token });
    await eventually(async () => (await stack.api('GET', '/clients/c3/agents', { token })).body.assignments.length === 1, 5_000, 100);
    expect((await stack.api('GET', '/clients/c2/agents', { token })).body.assignments).toEqual([]);
  });

  test('a policy with clients waiting and no queue run (its start lost with an API process) gets one from the reconciler', async () => {
    const token = await setUp(['a1']);
    await newClients(token, 1);
    // a1 is back by itself in 2 s: only the queue's run, which is gone, would have noticed.
    await stack.api('POST', '/agents/a1/absences', { token, body: { from: new Date(Date.now() - 60_000).toISOString(), until: new Date(Date.now() + 2_000).toISOString() } });
    expect((await route(token, 'c1')).status).toBe(202);
    const policy = await stack.prisma.routingPolicy.findFirstOrThrow({ where: { business: stack.business, id: 'sales', decisions: { some: { status: 'queued' } } }, orderBy: { createdAt: 'desc' } });
    const handle = stack.temporal.workflow.getHandle(routingQueueWorkflowId({ business: stack.business, policyKey: policy.pk }));
    await handle.terminate('lost with its API process');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await stack.api('GET', '/clients/c1/agents', { token })).body.assignments).toEqual([]);

    const reconcile = (): Promise<ReconcileResult> =>
      stack.temporal.workflow.execute(RECONCILE_WORKFLOW, { taskQueue: stack.taskQueue, workflowId: uniqueName('reconcile'), args: [{ graceMs: 0, business: stack.business }] });
    expect(await reconcile()).toMatchObject({ routingQueuesRestarted: 1 });
    await eventually(async () => (await stack.api('GET', '/clients/c1/agents', { token })).body.assignments.length === 1, 10_000, 100);
    expect(await reconcile()).toMatchObject({ routingQueuesRestarted: 0 });
  });

  test('clients waiting while no worker runs are assigned once one is back, none twice', async () => {
    const token = await setUp(['a1'], { capacity: 1 });
    await newClients(token, 3);
    await route(token, 'c1');
    await route(token, 'c2');
    await route(token, 'c3');
    await stack.stopWorker();
    try {
      await stack.api('DELETE', '/clients/c1/agents/a1', { token });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect((await stack.api('GET', '/routing-policies/sales/queue', { token })).body.queue).toHaveLength(2);
    } finally {
      await stack.startWorker();
    }
    await eventually(async () => (await stack.api('GET', '/clients/c2/agents', { token })).body.assignments.length === 1, 10_000, 100);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await stack.api('GET', '/agents/a1', { token })).body.load).toBe(1);
    expect((await stack.api('GET', '/routing-policies/sales/queue', { token })).body.queue.map((q: { client: string }) => q.client)).toEqual(['c3']);
  });
});
