import { randomUUID } from 'node:crypto';
import { feed, reconcilePass, runAsShown, secondsFromNow, tenantApi } from '../../support/client-run';
import { eventually, startStackFor, uniqueName, type TestStack } from '../../support/stack';

/*
 * The Temporal UI's buttons on a client's run (docs/operations.md, "What the buttons do"): Request
 * Cancellation, Terminate and Reset change no row, and the reconciler starts the run again from the rows
 * where the button left none open; nothing expires early, nothing is lost, nobody is unassigned, and the
 * run shows the truth. Ending an assignment is an API call.
 */

let stack: TestStack;
let token: string;

beforeAll(async () => ({ stack, token } = await startStackFor('owner-1')));
afterAll(() => stack.stop());

/**
 * How far the near assignment is: past the button and the reconciler's passes, on a busy machine (a button's
 * whole test took 0.6–3.5 s at load 7–9; 10.7 s was seen at load 20). The expiries at the end wait it out.
 */
const NEAR_S = 12;

/** A client of a business of its own whose run holds two assignments, one due soon and one far, from two requests. */
async function clientRunHoldingTwo() {
  const business = uniqueName('ops');
  const api = tenantApi(stack, token, business);
  expect((await api('POST', '/clients', { _id: 'c1' })).status).toBe(201);
  for (const agent of ['near', 'far']) expect((await api('POST', '/agents', { _id: agent })).status).toBe(201);
  const farAt = secondsFromNow(3600);
  const first = await api('POST', '/clients/c1/assign-agents', { agents: [{ agent: 'far', dt_until: farAt }] });
  expect(first.status).toBe(200);
  const nearAt = secondsFromNow(NEAR_S);
  const second = await api('POST', '/clients/c1/assign-agents', { agents: [{ agent: 'near', dt_until: nearAt }] });
  expect(second.status).toBe(200);
  const workflowId: string = first.body.assignments[0].workflow_id;
  expect(second.body.assignments[0].workflow_id).toBe(workflowId);
  const shown = await eventually(async () => {
    const run = await runAsShown(stack, workflowId);
    return run.agentIds.length === 2 ? run : undefined;
  });
  expect(shown.state.assignments.map((a) => a.agentId)).toEqual(['near', 'far']);
  return { business, api, workflowId, runId: shown.runId, nearAt, farAt };
}

async function rows(api: ReturnType<typeof tenantApi>) {
  const res = await api('GET', '/clients/c1/agents?status=all');
  expect(res.status).toBe(200);
  return res.body.assignments as { agent: string; status: string; dt_until: string; ended_at: string | null; workflow_id: string }[];
}

type Button = 'cancel' | 'terminate' | 'reset';

/** Presses the button on the run; returns the run left open by it (reset), if any. */
async function press(button: Button, workflowId: string, runId: string): Promise<string | undefined> {
  const handle = stack.temporal.workflow.getHandle(workflowId, runId);
  if (button === 'cancel') {
    await handle.cancel();
    await eventually(async () => ((await handle.describe()).status.name === 'CANCELLED' ? true : undefined));
    return undefined;
  }
  if (button === 'terminate') {
    await handle.terminate('an operator pressed Terminate');
    return undefined;
  }
  // The UI's "Reset to first workflow task completed", signals and updates reapplied as Temporal does by default.
  const events = (await handle.fetchHistory()).events ?? [];
  const firstCompleted = events.find((e) => e.workflowTaskCompletedEventAttributes);
  const reset = await stack.temporal.workflowService.resetWorkflowExecution({
    namespace: stack.temporal.options.namespace,
    workflowExecution: { workflowId, runId },
    reason: 'an operator pressed Reset',
    workflowTaskFinishEventId: firstCompleted!.eventId,
    requestId: randomUUID(),
  });
  return reset.runId!;
}

const expectedEnd: Record<Button, string> = { cancel: 'CANCELLED', terminate: 'TERMINATED', reset: 'TERMINATED' };

/**
 * The three buttons' runs, pressed and restarted one after the other before any near clock is due; their
 * near clocks are watched at the end of the file, so they run out while the tests between run instead of
 * one after the other.
 */
const pressed = new Map<Button, Awaited<ReturnType<typeof clientRunHoldingTwo>> & { open: string }>();

test.each<Button>(['cancel', 'terminate', 'reset'])('%s of a client\'s run: the rows stay, and the reconciler gives them a run that holds both clocks', async (button) => {
  const scenario = await clientRunHoldingTwo();
  const { business, api, workflowId, runId, nearAt, farAt } = scenario;
  const resetRunId = await press(button, workflowId, runId);
  expect((await stack.temporal.workflow.getHandle(workflowId, runId).describe()).status.name).toBe(expectedEnd[button]);

  // The button changed no row: both still active, nothing expired early.
  expect((await rows(api)).map((r) => [r.agent, r.status])).toEqual([
    ['far', 'active'],
    ['near', 'active'],
  ]);
  expect(await feed(api, 'type=assignment.expired')).toEqual([]);
  expect(await feed(api, 'type=assignment.unassigned')).toEqual([]);

  // A recent pass (every 2 minutes) finds the rows whose run ended abnormally; visibility lags a moment behind the button.
  let restarted = 0;
  const open = await eventually(async () => {
    restarted += (await reconcilePass(stack, business, false)).assignmentsRestarted;
    const described = await stack.temporal.workflow.getHandle(workflowId).describe();
    return described.status.name === 'RUNNING' && described.runId !== runId ? described.runId : undefined;
  });
  expect(Date.now()).toBeLessThan(Date.parse(nearAt));
  if (button === 'reset') {
    // Reset left its own run open: the reconciler has nothing to start.
    expect(open).toBe(resetRunId);
    expect(restarted).toBe(0);
  } else {
    expect(restarted).toBe(1);
  }
  // A full pass finds every row under an open run.
  expect(await reconcilePass(stack, business, true)).toMatchObject({ assignmentsChecked: 2, assignmentsRestarted: 0 });

  // The new run holds both clocks and says so.
  const before = await eventually(async () => {
    const run = await runAsShown(stack, workflowId);
    return run.state.assignments.length === 2 && run.agentIds.length === 2 ? run : undefined;
  });
  expect(before.runId).toBe(open);
  expect(before.state.assignments).toEqual([expect.objectContaining({ agentId: 'near', dtUntil: nearAt }), expect.objectContaining({ agentId: 'far', dtUntil: farAt })]);
  expect(before.details).toContain(`near until ${nearAt}`);
  expect(before.details).toContain(`far until ${farAt}`);
  expect([...before.agentIds].sort()).toEqual(['far', 'near']);
  expect(before.dtUntil).toBe(nearAt);
  pressed.set(button, { ...scenario, open });
});

/** A client whose run holds every kind of clock: a routed assignment and its first-response clock, and a rotation's period. */
async function clientRunHoldingEveryKind() {
  const business = uniqueName('ops');
  const api = tenantApi(stack, token, business);
  expect((await api('POST', '/clients', { _id: 'c1' })).status).toBe(201);
  for (const agent of ['a1', 'r1', 'r2']) expect((await api('POST', '/agents', { _id: agent })).status).toBe(201);
  expect((await api('PUT', '/teams/sales', { members: [{ agent: 'a1' }] })).status).toBe(200);
  expect((await api('PUT', '/routing-policies/sales', { team: 'sales', first_response_within: 'PT1H' })).status).toBe(200);
  const routed = await api('POST', '/clients/c1/route', { policy: 'sales' });
  expect(routed.body).toMatchObject({ status: 'assigned', agent: 'a1' });
  const put = await api('PUT', '/clients/c1/rotation', { agents: ['r1', 'r2'], period: '1h' });
  expect(put.status).toBe(201);
  const workflowId: string = put.body.workflow_id;
  const shown = await eventually(async () => {
    const run = await runAsShown(stack, workflowId);
    return run.state.assignments.length === 2 && run.state.firstResponses.length === 1 && run.state.rotations.length === 1 ? run : undefined;
  });
  return { business, api, workflowId, runId: shown.runId, decisionId: routed.body.decision_id as string };
}

const rotationOf = async (api: ReturnType<typeof tenantApi>) => (await api('GET', '/clients/c1/rotation')).body;

test.each<Button>(['cancel', 'terminate', 'reset'])('%s of a client\'s run holding every kind: no row changes, and the run the reconciler leaves open holds the assignments, the first-response clock and the rotation again', async (button) => {
  const { business, api, workflowId, runId, decisionId } = await clientRunHoldingEveryKind();
  await press(button, workflowId, runId);
  expect((await rows(api)).map((r) => [r.agent, r.status]).sort()).toEqual([
    ['a1', 'active'],
    ['r1', 'active'],
  ]);
  expect(await rotationOf(api)).toMatchObject({ status: 'active', workflow_id: workflowId });
  expect(await feed(api, 'type=assignment.unassigned')).toEqual([]);

  const open = await eventually(async () => {
    await reconcilePass(stack, business, false);
    const described = await stack.temporal.workflow.getHandle(workflowId).describe();
    return described.status.name === 'RUNNING' && described.runId !== runId ? described.runId : undefined;
  });
  const shown = await eventually(async () => {
    const run = await runAsShown(stack, workflowId);
    return run.state.assignments.length === 2 && run.state.firstResponses.length === 1 && run.state.rotations.length === 1 && run.details.includes('Rotation:') ? run : undefined;
  });
  expect(shown.runId).toBe(open);
  expect(shown.state.firstResponses).toEqual([{ decisionId, dueAt: expect.any(String) }]);
  expect(shown.state.rotations).toEqual([expect.objectContaining({ state: 'active', current: expect.objectContaining({ agent: 'r1' }) })]);
  expect(shown.details).toContain(`decision ${decisionId}: the owner must answer by`);
  expect(await reconcilePass(stack, business, true)).toMatchObject({
    assignmentsChecked: 2,
    assignmentsRestarted: 0,
    rotationsChecked: 1,
    rotationsRestarted: 0,
    firstResponseClocksChecked: 1,
    firstResponseClocksRestarted: 0,
  });
  expect((await feed(api, 'type=routing.*')).map((e) => e.type)).toEqual(['routing.assigned']);
  expect((await api('DELETE', '/clients/c1/rotation')).status).toBe(200);
});

test.each<Button>(['cancel', 'terminate', 'reset'])('%s of a client\'s run: the run the reconciler left open expires the near one at its dt_until, once, and the far one keeps its clock', async (button) => {
  const scenario = pressed.get(button);
  if (!scenario) throw new Error(`the ${button} run was not pressed and restarted: see the test before`);
  const { business, api, workflowId, nearAt, farAt, open } = scenario;
  // The near one expires at its dt_until, once; the far one stays, its clock in the same run.
  const expired = await eventually(async () => (await rows(api)).find((r) => r.agent === 'near' && r.status === 'expired'), 40_000);
  expect(Date.parse(expired.ended_at!)).toBeGreaterThanOrEqual(Date.parse(nearAt));
  expect((await feed(api, 'type=assignment.expired')).map((e) => e.data.agent)).toEqual(['near']);
  expect((await rows(api)).find((r) => r.agent === 'far')).toMatchObject({ status: 'active', dt_until: farAt, workflow_id: workflowId });

  const after = await eventually(async () => {
    const run = await runAsShown(stack, workflowId);
    return run.agentIds.length === 1 ? run : undefined;
  });
  expect(after).toMatchObject({ runId: open, status: 'RUNNING', agentIds: ['far'], dtUntil: farAt });
  expect(after.state.assignments).toEqual([expect.objectContaining({ agentId: 'far', dtUntil: farAt })]);
  expect(after.details).toContain(`far until ${farAt}`);
  expect(after.details).not.toContain('near');
  // No further pass restarts anything.
  expect(await reconcilePass(stack, business, true)).toMatchObject({ assignmentsChecked: 1, assignmentsRestarted: 0 });
});
