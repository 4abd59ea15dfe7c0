import { randomUUID } from 'node:crypto';
import { insertAssignRequest } from '../../src/db/assign-requests';
import {
  ASSIGN_AGENTS_WORKFLOW,
  ASSIGNMENT_EXPIRY_WORKFLOW,
  assignAgentsWorkflowId,
  assignmentWorkflowId,
  taskQueuesOf,
  type AssignAgentsResult,
  type AssignmentExpiryResult,
} from '../../src/domain';
import { searchAttributesOf } from '../../src/starters/search-attributes';
import { feed, reconcilePass, runAsShown, secondsFromNow, tenantWith as tenantWithClient, type TenantApi } from '../support/client-run';
import { eventually, startStackFor, type TestStack } from '../support/stack';

/*
 * Runs of the previous build's shapes, started by hand as its code started them: a per-pair
 * `assignmentExpiry` run on the expiry queue whose row names it (`assignment/…`), and an `assignAgents`
 * request run on the assign queue. The worker of this build keeps them working until they end: every
 * due pair expires exactly once, whichever run fires, and none is left without a clock.
 */

const USER = 'owner-1';
let stack: TestStack;
let token: string;

beforeAll(async () => ({ stack, token } = await startStackFor(USER)));
afterAll(() => stack.stop());

const tenantWith = (...agents: string[]) => tenantWithClient(stack, token, ...agents);

/** An active row under its per-pair run, both as the previous build left them. */
async function legacyPair(business: string, clientPk: string, agentId: string, dtUntil: string) {
  const agent = await stack.prisma.agent.findFirstOrThrow({ where: { business, id: agentId } });
  const workflowId = assignmentWorkflowId({ business, clientId: 'c1', agentId, clientPk });
  await stack.prisma.assignment.create({ data: { clientPk, agentPk: agent.pk, dtUntil: new Date(dtUntil), workflowId } });
  const handle = await stack.temporal.workflow.start(ASSIGNMENT_EXPIRY_WORKFLOW, {
    workflowId,
    taskQueue: taskQueuesOf(stack.taskQueue).expiry,
    args: [{ business, clientId: 'c1', agentId, clientPk, agentPk: agent.pk, dtUntil }],
    typedSearchAttributes: searchAttributesOf({ business, clientId: 'c1', agentId }),
    staticSummary: `Agent ${agentId} on client c1: expires the assignment at its dt_until`,
  });
  return stack.temporal.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
}

/** A request run of the previous build's API, in flight when this worker took over: it records, then hands the clocks on. */
async function legacyRequest(business: string, agents: { agentId: string; dtUntil: string }[]): Promise<AssignAgentsResult> {
  const workflowId = assignAgentsWorkflowId({ business, clientId: 'c1', requestId: randomUUID() });
  await insertAssignRequest(stack.prisma, workflowId, { business, ownerId: USER }, null);
  const run = await stack.temporal.workflow.start(ASSIGN_AGENTS_WORKFLOW, {
    workflowId,
    taskQueue: taskQueuesOf(stack.taskQueue).assign,
    args: [{ business, clientId: 'c1', agents }],
    typedSearchAttributes: searchAttributesOf({ business, clientId: 'c1' }),
  });
  return run.result();
}

async function rows(api: TenantApi) {
  const res = await api('GET', '/clients/c1/agents?status=all');
  expect(res.status).toBe(200);
  return res.body.assignments as { agent: string; status: string; dt_until: string; ended_at: string | null; workflow_id: string }[];
}

/** Waits until the agent's assignment of `dtUntil` is expired; checks it did not expire before it. */
async function expiredAtItsDate(api: TenantApi, agent: string, dtUntil: string) {
  const row = await eventually(async () => (await rows(api)).find((r) => r.agent === agent && r.dt_until === dtUntil && r.status === 'expired'), 40_000);
  expect(Date.parse(row.ended_at!)).toBeGreaterThanOrEqual(Date.parse(dtUntil));
  return row;
}

const expiredAgents = async (api: TenantApi) => (await feed(api, 'type=assignment.expired')).map((e) => `${e.data.agent}@${e.data.dt_until}`).sort();

/**
 * Two scenarios need a clock far enough out for the client's run to take over first (up to 12 s seen at
 * load 20). They are set up first and their expiries checked last, so their clocks run out while the
 * tests between run, rather than one after the other.
 */
type TakenOver = { api: TenantApi; clientRunId: string; nearAt: string; farAt: string; runId?: string };
const takenOver = new Map<'request run' | 'terminated', TakenOver>();
function scenario(name: 'request run' | 'terminated'): TakenOver {
  const found = takenOver.get(name);
  if (!found) throw new Error(`the ${name} scenario was not taken over: see its first test`);
  return found;
}

test('a request run of the previous build re-assigns the far pair: the client\'s run takes over both rows, both old runs end', async () => {
  const { api, business, clientPk, clientRunId } = await tenantWith('near', 'far');
  const nearAt = secondsFromNow(15);
  const near = await legacyPair(business, clientPk, 'near', nearAt);
  const far = await legacyPair(business, clientPk, 'far', '2099-01-01T00:00:00.000Z');

  const farAt = secondsFromNow(17);
  const answer = await legacyRequest(business, [{ agentId: 'far', dtUntil: farAt }]);
  expect(answer).toEqual({ client: 'c1', assignments: [{ agent: 'far', dt_until: farAt, status: 'active', workflow_id: clientRunId }] });
  await expect(far.result()).resolves.toEqual<AssignmentExpiryResult>({ outcome: 'ended' });

  // The client's run read the client's rows: the near pair is its too, and the near pair's old run, told so, ends.
  const shown = await eventually(async () => {
    const run = await runAsShown(stack, clientRunId);
    return run.state.assignments.length === 2 ? run : undefined;
  });
  expect(shown.state.assignments).toEqual([expect.objectContaining({ agentId: 'near', dtUntil: nearAt }), expect.objectContaining({ agentId: 'far', dtUntil: farAt })]);
  expect((await rows(api)).map((r) => r.workflow_id)).toEqual([clientRunId, clientRunId]);
  await expect(near.result()).resolves.toEqual<AssignmentExpiryResult>({ outcome: 'ended' });
  takenOver.set('request run', { api, clientRunId, nearAt, farAt });
});

test('a reconciler pass brings active rows whose old runs were terminated under their client\'s run', async () => {
  const { api, business, clientPk, clientRunId } = await tenantWith('near', 'far');
  const nearAt = secondsFromNow(20);
  const farAt = '2099-01-01T00:00:00.000Z';
  const near = await legacyPair(business, clientPk, 'near', nearAt);
  const far = await legacyPair(business, clientPk, 'far', farAt);
  await near.terminate('an operator, at the upgrade');
  await far.terminate('an operator, at the upgrade');

  // A recent pass finds them among the runs that ended abnormally (visibility lags a moment); one client, one run.
  let restarted = 0;
  await eventually(async () => {
    restarted += (await reconcilePass(stack, business, false)).assignmentsRestarted;
    return restarted > 0 ? true : undefined;
  });
  expect(restarted).toBe(1);
  const shown = await eventually(async () => {
    const run = await runAsShown(stack, clientRunId);
    return run.state.assignments.length === 2 && run.agentIds.length === 2 ? run : undefined;
  });
  expect(shown.state.assignments).toEqual([expect.objectContaining({ agentId: 'near', dtUntil: nearAt }), expect.objectContaining({ agentId: 'far', dtUntil: farAt })]);
  expect((await rows(api)).map((r) => r.workflow_id)).toEqual([clientRunId, clientRunId]);
  expect(await reconcilePass(stack, business, true)).toMatchObject({ assignmentsChecked: 2, assignmentsRestarted: 0 });
  takenOver.set('terminated', { api, clientRunId, nearAt, farAt, runId: shown.runId });
});

test('left alone, an old run expires its pair once; re-assigning the far pair moves its clock to the client\'s run, the old run ends and the client\'s run expires it', async () => {
  const { api, business, clientPk, clientRunId } = await tenantWith('near', 'far');
  const nearAt = secondsFromNow(5);
  const near = await legacyPair(business, clientPk, 'near', nearAt);
  const far = await legacyPair(business, clientPk, 'far', '2099-01-01T00:00:00.000Z');

  await expect(near.result()).resolves.toEqual<AssignmentExpiryResult>({ outcome: 'expired' });
  await expiredAtItsDate(api, 'near', nearAt);
  expect((await far.describe()).status.name).toBe('RUNNING');

  const farAt = secondsFromNow(6);
  const again = await api('POST', '/clients/c1/assign-agents', { agents: [{ agent: 'far', dt_until: farAt }] });
  expect(again.status).toBe(200);
  expect(again.body.assignments).toEqual([expect.objectContaining({ agent: 'far', dt_until: farAt, workflow_id: clientRunId })]);
  await expect(far.result()).resolves.toEqual<AssignmentExpiryResult>({ outcome: 'ended' });
  expect((await runAsShown(stack, clientRunId)).state.assignments).toEqual([expect.objectContaining({ agentId: 'far', dtUntil: farAt })]);

  expect(await expiredAtItsDate(api, 'far', farAt)).toMatchObject({ workflow_id: clientRunId });
  await expect(stack.temporal.workflow.getHandle(clientRunId).result()).resolves.toEqual({ outcome: 'idle' });
  expect(await expiredAgents(api)).toEqual([`far@${farAt}`, `near@${nearAt}`]);
});

test('re-assigned as its old run fires: the due pair still expires exactly once', async () => {
  const { api, business, clientPk, clientRunId } = await tenantWith('near', 'far');
  const nearAt = secondsFromNow(3);
  const near = await legacyPair(business, clientPk, 'near', nearAt);
  await legacyPair(business, clientPk, 'far', '2099-01-01T00:00:00.000Z');
  // The client's run starts about when the old run's timer fires: either may find the near pair due.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(nearAt) - Date.now() - 300)));
  const farAt = secondsFromNow(5);
  expect((await api('POST', '/clients/c1/assign-agents', { agents: [{ agent: 'far', dt_until: farAt }] })).status).toBe(200);

  await expiredAtItsDate(api, 'near', nearAt);
  expect(['expired', 'ended']).toContain((await near.result()).outcome);
  await expiredAtItsDate(api, 'far', farAt);
  await expect(stack.temporal.workflow.getHandle(clientRunId).result()).resolves.toEqual({ outcome: 'idle' });
  expect(await expiredAgents(api)).toEqual([`far@${farAt}`, `near@${nearAt}`]);
});

test('a request run of the previous build re-assigns the far pair: then the client\'s run expires each pair once at its date', async () => {
  const { api, clientRunId, nearAt, farAt } = scenario('request run');
  await expiredAtItsDate(api, 'near', nearAt);
  await expiredAtItsDate(api, 'far', farAt);
  await expect(stack.temporal.workflow.getHandle(clientRunId).result()).resolves.toEqual({ outcome: 'idle' });
  expect(await expiredAgents(api)).toEqual([`far@${farAt}`, `near@${nearAt}`]);
});

test('a reconciler pass brings active rows whose old runs were terminated under their client\'s run: then it expires the near one at its date and keeps the far one', async () => {
  const { api, clientRunId, nearAt, farAt, runId } = scenario('terminated');
  await expiredAtItsDate(api, 'near', nearAt);
  expect((await rows(api)).find((r) => r.agent === 'far')).toMatchObject({ status: 'active', workflow_id: clientRunId });
  const after = await eventually(async () => {
    const run = await runAsShown(stack, clientRunId);
    return run.agentIds.length === 1 ? run : undefined;
  });
  expect(after).toMatchObject({ runId, agentIds: ['far'], dtUntil: farAt });
  expect(await expiredAgents(api)).toEqual([`near@${nearAt}`]);
});
