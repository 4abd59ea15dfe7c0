import { RECONCILE_WORKFLOW, type ReconcileResult } from '../../../src/domain';
import { eventually } from '../../support/helpers';
import { clientInRotation, plusMs, rotationAssignments, startRotationStack } from '../../support/rotation';
import { uniqueName, type TestStack } from '../../support/stack';
import { untilListedEnded } from '../../support/listed-ended';

/* What the Temporal UI's buttons on the client's run, which holds the rotation's clock, do to the rotation. */

let stack: TestStack;
let token: string;

beforeAll(async () => ({ stack, token } = await startRotationStack('operator-user')));
afterAll(() => stack.stop());

const reconcile = (): Promise<ReconcileResult> =>
  stack.temporal.workflow.execute(RECONCILE_WORKFLOW, { taskQueue: stack.taskQueue, workflowId: uniqueName('reconcile'), args: [{ graceMs: 0, business: stack.business }] });

test('after a Terminate, the reconciler gives an active rotation its workflow back, which goes on from the schedule', async () => {
  const { clientId, put, startsAt } = await clientInRotation(stack, token, 2, { period: '2s' });
  const handle = stack.temporal.workflow.getHandle(put.body.workflow_id);
  await handle.terminate('operator test');
  await untilListedEnded(stack.temporal, handle.workflowId);

  // The pass starts the client's run once: for the period's assignment (that run may step the rotation, and
  // so take it over, before the pass reaches rotations) or for the rotation.
  const result = await reconcile();
  expect(result.assignmentsRestarted + result.rotationsRestarted).toBeGreaterThanOrEqual(1);
  expect(result.rotationsRestarted).toBe(result.rotationsChecked);
  expect((await handle.describe()).status.name).toBe('RUNNING');
  expect(await reconcile()).toMatchObject({ assignmentsRestarted: 0, rotationsRestarted: 0 });

  const made = await eventually(async () => {
    const periods = await rotationAssignments(stack, token, clientId);
    return periods.length >= 3 ? periods : undefined;
  }, 20_000);
  // Whatever ended while it had no clock is recorded as missed; the periods handed out stay on the schedule's boundaries.
  for (const period of made) expect((Date.parse(period.dt_until) - Date.parse(startsAt)) % 2000).toBe(0);
  expect(made[made.length - 1].dt_until).not.toBe(made[made.length - 2].dt_until);
  await stack.api('DELETE', `/clients/${clientId}/rotation`, { token });
});

test('Request Cancellation stops the run, not the rotation: nobody is unassigned and the reconciler gives the rotation its run back', async () => {
  const { clientId, agents, put } = await clientInRotation(stack, token, 2, { period: '1m' });
  const handle = stack.temporal.workflow.getHandle(put.body.workflow_id);
  await handle.cancel();
  await eventually(async () => ((await handle.describe()).status.name === 'CANCELLED' ? true : undefined));

  const view = await stack.api('GET', `/clients/${clientId}/rotation`, { token });
  expect(view.body).toMatchObject({ status: 'active', stopped_by: null, current: { agent: agents[0], until: plusMs(put.body.starts_at, 60_000) } });
  expect((await rotationAssignments(stack, token, clientId)).map((p) => p.status)).toEqual(['active']);
  const unassigned = await stack.api('GET', `/events?client=${clientId}&type=assignment.unassigned`, { token });
  expect(unassigned.body.events).toEqual([]);
  const result = await reconcile();
  expect(result.assignmentsRestarted + result.rotationsRestarted).toBeGreaterThanOrEqual(1);
  expect((await handle.describe()).status.name).toBe('RUNNING');
  await stack.api('DELETE', `/clients/${clientId}/rotation`, { token });
});
