import { RECONCILE_WORKFLOW, type ReconcileResult } from '../../src/domain';
import { eventually } from '../support/helpers';
import { clientInRotation, plusMs, rotationAssignments, startRotationStack } from '../support/rotation';
import { uniqueName, type TestStack } from '../support/stack';

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

test('Request Cancellation stops the rotation, as stopped by an operator, and ends the period in progress with the client\'s other assignments', async () => {
  const { clientId, agents, put } = await clientInRotation(stack, token, 2, { period: '1m' });
  const handle = stack.temporal.workflow.getHandle(put.body.workflow_id);
  await handle.cancel();
  await eventually(async () => ((await handle.describe()).status.name === 'CANCELLED' ? true : undefined));

  const view = await stack.api('GET', `/clients/${clientId}/rotation`, { token });
  expect(view.body).toMatchObject({ status: 'stopped', next: null, current: { agent: agents[0], until: plusMs(put.body.starts_at, 60_000) } });
  expect(view.body.stopped_by).toEqual({ actor: 'operator', reason: 'operator' });
  expect(await stack.prisma.rotation.findFirstOrThrow({ where: { client: { business: stack.business, id: clientId } } })).toMatchObject({ stoppedBy: 'operator' });
  const feed = await stack.api('GET', `/events?client=${clientId}&type=rotation.*`, { token });
  expect(feed.body.events).toEqual([expect.objectContaining({ type: 'rotation.stopped', data: { ...view.body, reason: 'operator' } })]);
  expect((await rotationAssignments(stack, token, clientId)).map((p) => p.status)).toEqual(['unassigned']);
  const unassigned = await stack.api('GET', `/events?client=${clientId}&type=assignment.unassigned`, { token });
  expect(unassigned.body.events.map((e: any) => [e.data.agent, e.data.reason])).toEqual([[agents[0], 'operator']]);
  expect(await reconcile()).toMatchObject({ rotationsRestarted: 0 });

  // A PUT sets it going again under the same workflow id.
  const again = await stack.api('PUT', `/clients/${clientId}/rotation`, { token, body: { agents, period: '1m' } });
  expect(again.body).toMatchObject({ status: 'active', workflow_id: put.body.workflow_id, next: { agent: agents[0], from: put.body.current.until } });
  expect((await handle.describe()).status.name).toBe('RUNNING');
  await stack.api('DELETE', `/clients/${clientId}/rotation`, { token });
});
