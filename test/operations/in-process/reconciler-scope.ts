import { RECONCILE_WORKFLOW, type ReconcileInput, type ReconcileResult } from '../../../src/domain';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';
import { untilListedEnded } from '../../support/listed-ended';

/*
 * The suite's files share one PostgreSQL and one Temporal server. Each stack's worker reconciles its own
 * business only (RECONCILE_BUSINESSES, which every test stack sets): a pass without a business of its
 * own, as the housekeeping run makes, never adopts another file's orphan onto its task queue.
 */

let first: TestStack;
let second: TestStack;

beforeAll(async () => {
  [first, second] = await Promise.all([startTestStack(), startTestStack()]);
});

afterAll(async () => {
  await first?.stop();
  await second?.stop();
});

/** A message due in an hour whose run an operator terminated: a row without its workflow. */
async function orphanMessage(stack: TestStack) {
  const token = stack.token(uniqueName('user'));
  const res = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client_phone: '+14155550100', text_message: 'Later', delay: 'PT1H' } });
  expect(res.status).toBe(202);
  const run = stack.temporal.workflow.getHandle(res.body.workflow_id);
  const { runId, taskQueue } = await run.describe();
  await run.terminate('operator test');
  await untilListedEnded(stack.temporal, run.workflowId);
  return { workflowId: res.body.workflow_id as string, runId, taskQueue };
}

/** One pass of the stack's own worker (its reconcile activity), over whatever businesses the worker covers. */
const workerPass = (stack: TestStack): Promise<ReconcileResult> =>
  stack.temporal.workflow.execute(RECONCILE_WORKFLOW, {
    workflowId: uniqueName('reconcile'),
    taskQueue: stack.taskQueue,
    args: [{ graceMs: 0, full: true } satisfies ReconcileInput],
  });

test("two stacks' reconcilers side by side: each restarts its own orphan on its own task queue, never the other's", async () => {
  const [firstOrphan, secondOrphan] = await Promise.all([orphanMessage(first), orphanMessage(second)]);

  const [firstPass, secondPass] = await Promise.all([workerPass(first), workerPass(second)]);

  expect(firstPass).toMatchObject({ messagesChecked: 1, messagesRestarted: 1 });
  expect(secondPass).toMatchObject({ messagesChecked: 1, messagesRestarted: 1 });
  for (const [stack, orphan] of [[first, firstOrphan], [second, secondOrphan]] as const) {
    const restarted = await stack.temporal.workflow.getHandle(orphan.workflowId).describe();
    expect({ status: restarted.status.name, newRun: restarted.runId !== orphan.runId, taskQueue: restarted.taskQueue }).toEqual({
      status: 'RUNNING',
      newRun: true,
      taskQueue: orphan.taskQueue,
    });
  }
  expect(firstOrphan.taskQueue).not.toBe(secondOrphan.taskQueue);
});
