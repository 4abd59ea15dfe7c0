import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../../../src/paths';
import { runWorker } from '../../../src/main/services';
import type { RunningWorker } from '../../../src/worker';
import { eventually } from '../../support/helpers';
import { messageSentAndAssignmentExpiring, startTestStack, type TestStack } from '../../support/stack';

/**
 * The workflow bundle gained OpenTelemetry's workflow interceptors: runs started by a worker without
 * them (before an upgrade) must replay on the new bundle, or an upgrade would break runs in flight.
 */
let stack: TestStack;
let oldWorker: RunningWorker;
beforeAll(async () => {
  stack = await startTestStack();
  await stack.stopWorker();
  const silent = () => undefined;
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES.filter((path) => !path.includes('telemetry')),
    logger: { log: silent, trace: silent, debug: silent, info: silent, warn: console.warn, error: console.error },
  });
  oldWorker = await runWorker(stack.services, { workflowBundle: { code } });
});
afterAll(async () => {
  await oldWorker.stop();
  await stack.stop();
});

test('a message run and an assignment expiry that slept and fired, recorded without tracing, replay on the traced bundle', async () => {
  const token = stack.token('replay-user');
  const { message, assigned } = await messageSentAndAssignmentExpiring(stack, token, 'before the upgrade');
  expect(assigned.status).toBe(200);
  const expiryId = await eventually(async () => {
    for await (const wf of stack.temporal.workflow.list({ query: `WorkflowType = 'clientOwnership' AND BusinessName = '${stack.business}'` })) return wf.workflowId;
    return undefined;
  });
  expect(await stack.temporal.workflow.getHandle(expiryId).result()).toEqual({ outcome: 'idle' });

  const traced = { workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } };
  for (const workflowId of [message.workflow_id as string, expiryId]) {
    const history = await stack.temporal.workflow.getHandle(workflowId).fetchHistory();
    await expect(Worker.runReplayHistory(traced, history, workflowId)).resolves.toBeUndefined();
  }
});
