import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { MAX_TIMER_CHUNK_MS, type ClientRunState } from '../../../src/domain';
import { CHUNK_JITTER_MS } from '../../../src/workflows/timers';
import { eventually, startStackFor, uniqueName, type TestStack } from '../../support/stack';

let stack: TestStack;
let token: string;

beforeAll(async () => ({ stack, token } = await startStackFor('owner-1')));
afterAll(() => stack.stop());

async function clientWithAgents(...agentIds: string[]) {
  const clientId = uniqueName('client');
  expect((await stack.api('POST', '/clients', { token, body: { _id: clientId } })).status).toBe(201);
  for (const agentId of agentIds) {
    expect((await stack.api('POST', '/agents', { token, body: { _id: agentId } })).status).toBe(201);
  }
  return clientId;
}

async function assign(clientId: string, agents: object[]) {
  const res = await stack.api('POST', `/clients/${clientId}/assign-agents`, { token, body: { agents } });
  expect(res.status).toBe(200);
  return res.body.assignments as { agent: string; dt_until: string; workflow_id: string }[];
}

async function history(clientId: string) {
  const res = await stack.api('GET', `/clients/${clientId}/agents?status=all`, { token });
  expect(res.status).toBe(200);
  return res.body.assignments as { agent: string; status: string; dt_until: string }[];
}

const secondsFromNow = (s: number) => new Date(Date.now() + s * 1000).toISOString();

async function timersStarted(handle: WorkflowHandle) {
  const events = (await handle.fetchHistory()).events ?? [];
  return events
    .map((e) => e.timerStartedEventAttributes?.startToFireTimeout)
    .filter((t): t is NonNullable<typeof t> => !!t)
    .map((t) => Number(t.seconds ?? 0) * 1000 + Math.round((t.nanos ?? 0) / 1e6));
}

const state = (handle: WorkflowHandle) => handle.query<ClientRunState>('state');

/*
 * The clocks of seconds are set going together, one client each, in the order of the tests and one request
 * after the other, so that their waits overlap (and those that must act before a dt_until have 5 s, a loaded
 * machine's requests taking seconds); each test then checks its own client. The worker restart
 * comes after them all, so that none of these clocks falls due while the worker is down.
 */
describe('clocks of seconds, set going together', () => {
  let expiresAlone: Awaited<ReturnType<typeof assignExpiringAlone>>;
  let oneRun: Awaited<ReturnType<typeof assignEarlyAndLate>>;
  let reassigned: Awaited<ReturnType<typeof assignThenMoveLater>>;
  let again: Awaited<ReturnType<typeof assignToExpire>>;
  let replayed: Awaited<ReturnType<typeof assignTwoThenOneSooner>>;
  beforeAll(async () => {
    expiresAlone = await assignExpiringAlone();
    oneRun = await assignEarlyAndLate();
    reassigned = await assignThenMoveLater();
    again = await assignToExpire();
    replayed = await assignTwoThenOneSooner();
  });

  async function assignExpiringAlone() {
    const agent = uniqueName('agent');
    const clientId = await clientWithAgents(agent);
    const [assignment] = await assign(clientId, [{ agent, dt_until: secondsFromNow(5) }]);
    return { agent, clientId, assignment, statusAtFirst: (await history(clientId))[0].status };
  }

  test('an assignment expires by itself at its dt_until, and the client\'s run ends once it holds no clock', async () => {
    const { agent, clientId, assignment, statusAtFirst } = expiresAlone;
    expect(statusAtFirst).toBe('active');
    const result = await stack.temporal.workflow.getHandle(assignment.workflow_id).result();
    expect(result).toEqual({ outcome: 'idle' });
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(assignment.dt_until));

    const [row] = await history(clientId);
    expect(row).toMatchObject({ agent, status: 'expired', dt_until: assignment.dt_until, ended_by: { actor: 'system', reason: 'expiry' } });
    const active = await stack.api('GET', `/clients/${clientId}/agents`, { token });
    expect(active.body.assignments).toEqual([]);
  });

  async function assignEarlyAndLate() {
    const [early, late] = [uniqueName('agent'), uniqueName('agent')];
    const clientId = await clientWithAgents(early, late);
    const assignments = await assign(clientId, [{ agent: late, dt_until: secondsFromNow(3600) }, { agent: early, dt_until: secondsFromNow(2) }]);
    return { early, late, clientId, assignments };
  }

  test('one run holds every agent of the client: each expires at its own dt_until, the later one still waiting', async () => {
    const { early, late, clientId, assignments } = oneRun;
    expect(new Set(assignments.map((a) => a.workflow_id)).size).toBe(1);
    const handle = stack.temporal.workflow.getHandle(assignments[0].workflow_id);

    await eventually(async () => (await history(clientId)).find((r) => r.agent === early)?.status === 'expired');
    expect((await history(clientId)).find((r) => r.agent === late)?.status).toBe('active');
    const after = await state(handle);
    expect(after.assignments.map((a) => a.agentId)).toEqual([late]);
    expect((await handle.describe()).status.name).toBe('RUNNING');
  });

  async function assignThenMoveLater() {
    const agent = uniqueName('agent');
    const clientId = await clientWithAgents(agent);
    const [first] = await assign(clientId, [{ agent, dt_until: secondsFromNow(5) }]);
    const { runId } = await stack.temporal.workflow.getHandle(first.workflow_id).describe();
    const later = secondsFromNow(3600);
    const [second] = await assign(clientId, [{ agent, dt_until: later }]);
    return { agent, clientId, first, runId, later, second };
  }

  test('re-assigning before expiry moves the deadline in the same run', async () => {
    const { agent, clientId, first, runId, later, second } = reassigned;
    expect(second.workflow_id).toBe(first.workflow_id);
    const handle = stack.temporal.workflow.getHandle(first.workflow_id);

    await eventually(async () => (await state(handle)).assignments[0]?.dtUntil === later);
    // A second past the first dt_until, which no longer ends it.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(first.dt_until) + 1000 - Date.now())));
    const rows = await history(clientId);
    expect(rows).toEqual([expect.objectContaining({ agent, status: 'active', dt_until: later })]);
    const described = await handle.describe();
    expect(described.status.name).toBe('RUNNING');
    expect(described.runId).toBe(runId);
  });

  async function assignToExpire() {
    const agent = uniqueName('agent');
    const clientId = await clientWithAgents(agent);
    const [first] = await assign(clientId, [{ agent, dt_until: secondsFromNow(2) }]);
    const firstRun = await stack.temporal.workflow.getHandle(first.workflow_id).describe();
    return { agent, clientId, first, firstRun };
  }

  test('an agent assigned again after expiry gets a new active assignment and a new run of the same client workflow', async () => {
    const { agent, clientId, first, firstRun } = again;
    await stack.temporal.workflow.getHandle(first.workflow_id).result();

    const [second] = await assign(clientId, [{ agent }]);
    expect(second.workflow_id).toBe(first.workflow_id);
    const secondRun = await stack.temporal.workflow.getHandle(second.workflow_id).describe();
    expect(secondRun.runId).not.toBe(firstRun.runId);
    expect(secondRun.status.name).toBe('RUNNING');
    expect((await history(clientId)).map((r) => r.status)).toEqual(['expired', 'active']);
  });

  async function assignTwoThenOneSooner() {
    const [agentA, agentB] = [uniqueName('agent'), uniqueName('agent')];
    const clientId = await clientWithAgents(agentA, agentB);
    const [first] = await assign(clientId, [{ agent: agentA, dt_until: secondsFromNow(2) }, { agent: agentB, dt_until: secondsFromNow(3) }]);
    await assign(clientId, [{ agent: agentA, dt_until: secondsFromNow(1) }]);
    return { first };
  }

  test('the history of a client\'s run that answered requests and expired an assignment replays deterministically', async () => {
    const { first } = replayed;
    const run = stack.temporal.workflow.getHandle(first.workflow_id);
    expect(await run.result()).toEqual({ outcome: 'idle' });

    const bundle = { workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } };
    await Worker.runReplayHistory(bundle, await run.fetchHistory(), first.workflow_id);
  });
});

test('expiry survives a worker restart: a timer that fell due while the worker was down fires when it returns', async () => {
  const agent = uniqueName('agent');
  const clientId = await clientWithAgents(agent);
  const [assignment] = await assign(clientId, [{ agent, dt_until: secondsFromNow(2) }]);
  const handle = stack.temporal.workflow.getHandle(assignment.workflow_id);
  await stack.stopWorker();
  try {
    // Fallen due while no worker runs: its dt_until past and the server's timer fired (the history says so), the row still active.
    await eventually(async () => Date.now() >= Date.parse(assignment.dt_until) && (await handle.fetchHistory()).events?.some((e) => e.timerFiredEventAttributes));
    expect((await history(clientId))[0].status).toBe('active');
  } finally {
    await stack.startWorker();
  }
  await eventually(async () => (await history(clientId))[0].status === 'expired');
  const result = await handle.result();
  expect(result).toEqual({ outcome: 'idle' });
});

test('the default dt_until of 2143-06-23 leaves a live timer of one bounded chunk, less a random part of a day', async () => {
  const agent = uniqueName('agent');
  const clientId = await clientWithAgents(agent);
  const before = Date.now();
  const [assignment] = await assign(clientId, [{ agent }]);
  expect(assignment.dt_until).toBe('2143-06-23T00:00:00.000Z');

  const handle = stack.temporal.workflow.getHandle(assignment.workflow_id);
  const timers = await eventually(async () => {
    const started = await timersStarted(handle);
    return started.length ? started : undefined;
  });
  expect(timers).toHaveLength(1);
  expect(timers[0]).toBeLessThanOrEqual(MAX_TIMER_CHUNK_MS);
  expect(timers[0]).toBeGreaterThan(MAX_TIMER_CHUNK_MS - CHUNK_JITTER_MS);

  const current = await state(handle);
  expect(current.assignments).toEqual([expect.objectContaining({ agentId: agent, dtUntil: '2143-06-23T00:00:00.000Z' })]);
  const wake = Date.parse(current.nextWakeAt!);
  expect(wake).toBeGreaterThanOrEqual(before + timers[0]);
  expect(wake).toBeLessThanOrEqual(Date.now() + timers[0]);
  expect((await handle.describe()).status.name).toBe('RUNNING');
});

test('unassigning ends the assignment now; the run, holding no other clock, ends', async () => {
  const agent = uniqueName('agent');
  const clientId = await clientWithAgents(agent);
  const [assignment] = await assign(clientId, [{ agent }]);
  const res = await stack.api('DELETE', `/clients/${clientId}/agents/${agent}`, { token });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ agent, status: 'unassigned', workflow_id: assignment.workflow_id });

  const handle = stack.temporal.workflow.getHandle(assignment.workflow_id);
  expect(await handle.result()).toEqual({ outcome: 'idle' });
  expect((await handle.describe()).status.name).toBe('COMPLETED');
  expect((await history(clientId))[0].status).toBe('unassigned');
});

test('operators find a client\'s run by its id, the clients an agent holds by AgentIds, and what expires next by AssignmentDtUntil', async () => {
  const [agentA, agentB] = [uniqueName('agent'), uniqueName('agent')];
  const clientId = await clientWithAgents(agentA, agentB);
  const soon = secondsFromNow(3600);
  const assignments = await assign(clientId, [{ agent: agentA }, { agent: agentB, dt_until: soon }]);
  const { pk } = await stack.prisma.client.findFirstOrThrow({ where: { business: stack.business, id: clientId } });
  const runId = `client/${stack.business}/${clientId}/${pk}`;
  expect(assignments.map((a) => a.workflow_id)).toEqual([runId, runId]);

  const list = async (query: string) => {
    const ids: string[] = [];
    for await (const wf of stack.temporal.workflow.list({ query })) ids.push(wf.workflowId);
    return ids.sort();
  };
  const byClient = `BusinessName = '${stack.business}' AND ClientId = '${clientId}' AND WorkflowType = 'clientOwnership'`;
  await eventually(async () => (await list(byClient)).length === 1);
  const byAgent = `AgentIds = '${agentB}' AND BusinessName = '${stack.business}' AND ExecutionStatus = 'Running'`;
  await eventually(async () => (await list(byAgent)).length === 1);
  expect(await list(byAgent)).toEqual([runId]);
  const described = await stack.temporal.workflow.getHandle(runId).describe();
  expect((described.typedSearchAttributes.get({ name: 'AssignmentDtUntil', type: 'DATETIME' } as never) as Date | undefined)?.toISOString()).toBe(soon);
  expect(await described.staticSummary()).toBe(`Client ${clientId}: its assignments' expiry, first-response clocks and rotation`);
  // The run's current details list what it holds.
  const details = await eventually(async () => {
    const text = String((await stack.temporal.workflow.getHandle(runId).query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails);
    return text.includes(agentA) ? text : undefined;
  });
  expect(details).toContain(`${agentB} until ${soon}`);

  // Unassigned, the agent no longer holds the client.
  expect((await stack.api('DELETE', `/clients/${clientId}/agents/${agentB}`, { token })).status).toBe(200);
  await eventually(async () => (await list(byAgent)).length === 0);
});

