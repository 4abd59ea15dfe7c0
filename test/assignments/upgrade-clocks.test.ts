import {
  FIRST_RESPONSE_WORKFLOW,
  firstResponseWorkflowId,
  ROTATION_WORKFLOW,
  rotationWorkflowId,
  type ClientRunState,
} from '../../src/domain';
import { searchAttributesOf } from '../../src/starters/search-attributes';
import { feed, reconcilePass, tenantWith as tenantWithClient, type TenantApi } from '../support/client-run';
import { eventually, startStackFor, type TestStack } from '../support/stack';

/*
 * The previous build's per-decision first-response runs (`routingFirstResponse`) and per-rotation runs
 * (`rotation`), started by hand as its code started them, on a clock its row names (as the migration
 * leaves a clock that was running: `clock_workflow_id`, `workflow_id`). The worker of this build keeps
 * them working until the client's run takes their clock over; nothing is reassigned, escalated or handed
 * out twice, and no clock is left without a run.
 */

const USER = 'owner-1';
let stack: TestStack;
let token: string;

beforeAll(async () => ({ stack, token } = await startStackFor(USER, { routingMinFirstResponseMs: 1000, rotationMinPeriodMs: 1000 })));
afterAll(() => stack.stop());

/**
 * Where an old run is started when the test terminates it as the upgrade left it: no worker polls there,
 * so it has taken no step (a step of an old run wakes the client's run, which takes its clock over).
 */
const NOBODY_POLLS = 'upgrade-clocks-nobody-polls';

const tenantWith = (...agents: string[]) => tenantWithClient(stack, token, ...agents);

/** Ends the client's run as an operator's Terminate would: the rows stay, as the previous build left them. */
async function withoutClientRun(clientRunId: string) {
  const handle = stack.temporal.workflow.getHandle(clientRunId);
  await handle.terminate('the previous build had no such run');
}

/** A routed decision whose first-response clock an older build's run holds (its row names it), that run started by hand. */
async function legacyDecision(api: TenantApi, business: string, clientRunId: string, within: string, taskQueue = stack.taskQueue) {
  expect((await api('PUT', '/teams/sales', { members: [{ agent: 'a1' }, { agent: 'a2' }] })).status).toBe(200);
  expect((await api('PUT', '/routing-policies/sales', { team: 'sales', first_response_within: within, max_reassignments: 1 })).status).toBe(200);
  const routed = await api('POST', '/clients/c1/route', { policy: 'sales' });
  expect(routed.body).toMatchObject({ status: 'assigned', agent: 'a1' });
  const decisionId: string = routed.body.decision_id;
  await eventually(async () => ((await clientRun(clientRunId)).firstResponses.length === 1 ? true : undefined));
  await withoutClientRun(clientRunId);
  const workflowId = firstResponseWorkflowId({ business, decisionId });
  await stack.prisma.routingDecision.update({ where: { id: decisionId }, data: { clockWorkflowId: workflowId } });
  const run = await stack.temporal.workflow.start(FIRST_RESPONSE_WORKFLOW, {
    workflowId,
    taskQueue,
    args: [{ business, decisionId }],
    typedSearchAttributes: searchAttributesOf({ business }),
  });
  return { decisionId, legacy: stack.temporal.workflow.getHandle(run.workflowId, run.firstExecutionRunId) };
}

const clientRun = (clientRunId: string) => stack.temporal.workflow.getHandle(clientRunId).query<ClientRunState>('state');
const decision = async (api: TenantApi, id: string) => (await api('GET', `/routing-decisions/${id}`)).body;
const routingEvents = async (api: TenantApi) => (await feed(api, 'type=routing.*')).map((e) => e.type).filter((type) => type !== 'routing.assigned');

/**
 * The takeover's deadline must leave the assign time to come first on a loaded machine; its
 * reassignment and escalation are checked at the end of the file, while the tests between run.
 */
let tookOver: { api: TenantApi; decisionId: string } | undefined;

test('an assign that starts the client\'s run takes an old run\'s clock over at once: the old run ends', async () => {
  const { business, api, clientRunId } = await tenantWith('a1', 'a2', 'a3');
  const { decisionId, legacy } = await legacyDecision(api, business, clientRunId, 'PT8S');

  expect((await api('POST', '/clients/c1/assign-agents', { agents: [{ agent: 'a3', dt_until: '2099-01-01T00:00:00.000Z' }] })).status).toBe(200);
  await expect(legacy.result()).resolves.toEqual({ outcome: 'ended' });
  expect((await clientRun(clientRunId)).firstResponses).toEqual([{ decisionId, dueAt: expect.any(String) }]);
  tookOver = { api, decisionId };
});

test('an old first-response run left alone reassigns once; the client\'s run, woken by it, takes the clock over, the old run ends, and the client\'s run escalates once', async () => {
  const { business, api, clientRunId } = await tenantWith('a1', 'a2');
  const { decisionId, legacy } = await legacyDecision(api, business, clientRunId, 'PT3S');

  await expect(legacy.result()).resolves.toEqual({ outcome: 'ended' });
  expect(await decision(api, decisionId)).toMatchObject({ agent: 'a2', reassignments: 1 });
  expect((await stack.prisma.routingDecision.findUniqueOrThrow({ where: { id: decisionId } })).clockWorkflowId).toBeNull();

  const escalated = await eventually(async () => ((await decision(api, decisionId)).escalated_at ? decision(api, decisionId) : undefined), 30_000);
  expect(escalated).toMatchObject({ agent: 'a2', reassignments: 1 });
  expect(await routingEvents(api)).toEqual(['routing.reassigned', 'routing.escalated']);
  await eventually(async () => ((await clientRun(clientRunId)).firstResponses.length === 0 ? true : undefined));
});

test('an old first-response run terminated at the upgrade: the reconciler brings its clock under the client\'s run', async () => {
  const { business, api, clientRunId } = await tenantWith('a1', 'a2');
  const { decisionId, legacy } = await legacyDecision(api, business, clientRunId, 'PT1H', NOBODY_POLLS);
  await legacy.terminate('an operator, at the upgrade');

  // The client's run was terminated too: the pass restarts it for the assignment, and the clock with it.
  // That run may take the clock over before the pass reaches the clocks (the row then changed after the
  // pass began, and is not its to check): either way the clock is counted restarted only if it was checked.
  const pass = await reconcilePass(stack, business, true);
  expect(pass).toMatchObject({ assignmentsRestarted: 1 });
  expect(pass.firstResponseClocksRestarted).toBe(pass.firstResponseClocksChecked);
  await eventually(async () => ((await clientRun(clientRunId)).firstResponses[0]?.decisionId === decisionId ? true : undefined));
  expect((await stack.prisma.routingDecision.findUniqueOrThrow({ where: { id: decisionId } })).clockWorkflowId).toBeNull();
  expect(await reconcilePass(stack, business, true)).toMatchObject({ firstResponseClocksChecked: 1, firstResponseClocksRestarted: 0 });
});

/** A rotation whose clock an older build's run holds (its row names it), that run started by hand; no client's run. */
async function legacyRotation(api: TenantApi, business: string, clientPk: string, clientRunId: string, period: string, taskQueue = stack.taskQueue) {
  const put = await api('PUT', '/clients/c1/rotation', { agents: ['a1', 'a2'], period });
  expect(put.status).toBe(201);
  await withoutClientRun(clientRunId);
  const row = await stack.prisma.rotation.findFirstOrThrow({ where: { clientPk } });
  const workflowId = rotationWorkflowId({ business, clientPk, rotationKey: row.key });
  await stack.prisma.rotation.update({ where: { key: row.key }, data: { workflowId } });
  const run = await stack.temporal.workflow.start(ROTATION_WORKFLOW, {
    workflowId,
    taskQueue,
    args: [{ business, clientPk, rotationKey: row.key }],
    typedSearchAttributes: searchAttributesOf({ business, clientId: 'c1' }),
  });
  return { startsAt: put.body.starts_at as string, rotationKey: row.key, legacy: stack.temporal.workflow.getHandle(run.workflowId, run.firstExecutionRunId), workflowId };
}

/**
 * Periods judged to the second: a step later than a whole period skips it, and 2 s periods were skipped at
 * load 25 (workflow tasks of 5 s); four periods of 4 s still show the old run's and the client's run's.
 */
const PERIOD_MS = 4000;
const WATCHED = 4;

const periods = async (api: TenantApi) =>
  ((await api('GET', '/clients/c1/agents?status=all')).body.assignments as { agent: string; dt_until: string; rotation: boolean }[])
    .filter((a) => a.rotation)
    .sort((a, b) => Date.parse(a.dt_until) - Date.parse(b.dt_until));

test('an old rotation run hands out the next period; the client\'s run, woken by it, takes the rotation over, the old run ends, and the periods go on once each', async () => {
  const { business, api, clientPk, clientRunId } = await tenantWith('a1', 'a2');
  const { startsAt, legacy, workflowId } = await legacyRotation(api, business, clientPk, clientRunId, `${PERIOD_MS / 1000}s`);
  expect((await api('GET', '/clients/c1/rotation')).body.workflow_id).toBe(workflowId);

  await expect(legacy.result()).resolves.toEqual({ outcome: 'stopped' });
  expect((await api('GET', '/clients/c1/rotation')).body).toMatchObject({ status: 'active', workflow_id: clientRunId });
  const made = await eventually(async () => {
    const list = await periods(api);
    return list.length >= WATCHED ? list : undefined;
  }, 40_000);
  made.slice(0, WATCHED).forEach((p, k) => expect([p.agent, p.dt_until]).toEqual([k % 2 === 0 ? 'a1' : 'a2', new Date(Date.parse(startsAt) + (k + 1) * PERIOD_MS).toISOString()]));
  // Each period once: one assignment.created each (a re-assignment of the same agent would be an update).
  const created = (await feed(api, 'type=assignment.created')).map((e) => e.data.dt_until);
  expect(new Set(created).size).toBe(created.length);
  expect((await api('DELETE', '/clients/c1/rotation')).status).toBe(200);
});

test('an old rotation run terminated at the upgrade: the reconciler brings the rotation under the client\'s run, which goes on from the schedule', async () => {
  const { business, api, clientPk, clientRunId } = await tenantWith('a1', 'a2');
  const { legacy, rotationKey } = await legacyRotation(api, business, clientPk, clientRunId, '1m', NOBODY_POLLS);
  await legacy.terminate('an operator, at the upgrade');

  // The pass starts the client's run once: for the first period's assignment when the old run had handed
  // it out (that run may then take the rotation over before the pass reaches rotations), else for the rotation.
  const pass = await reconcilePass(stack, business, true);
  expect(pass.assignmentsRestarted + pass.rotationsRestarted).toBeGreaterThanOrEqual(1);
  expect(pass.rotationsRestarted).toBe(pass.rotationsChecked);
  const [rotation] = await eventually(async () => {
    const held = (await clientRun(clientRunId)).rotations;
    return held.length === 1 ? held : undefined;
  });
  expect(rotation).toMatchObject({ rotationKey, state: 'active', current: { agent: 'a1' } });
  expect((await stack.prisma.rotation.findUniqueOrThrow({ where: { key: rotationKey } })).workflowId).toBeNull();
  expect(await reconcilePass(stack, business, true)).toMatchObject({ rotationsChecked: 1, rotationsRestarted: 0 });
  expect((await api('DELETE', '/clients/c1/rotation')).status).toBe(200);
});

test('an assign that starts the client\'s run takes an old run\'s clock over at once: then the client\'s run reassigns once at the deadline and escalates once', async () => {
  if (!tookOver) throw new Error('the takeover did not happen: see the test before');
  const { api, decisionId } = tookOver;
  const moved = await eventually(async () => ((await decision(api, decisionId)).reassignments === 1 ? decision(api, decisionId) : undefined), 30_000);
  expect(moved.agent).toBe('a2');
  await eventually(async () => ((await decision(api, decisionId)).escalated_at ? true : undefined), 30_000);
  expect(await routingEvents(api)).toEqual(['routing.reassigned', 'routing.escalated']);
});
