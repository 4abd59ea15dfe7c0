import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../../src/paths';
import { runWorker } from '../../src/main/services';
import type { RunningWorker } from '../../src/worker';
import { eventually, waitForStatus } from '../support/helpers';
import { startTestStack, type TestStack } from '../support/stack';

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
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c-1', name: 'Ada', phone: '+14155550100' } })).status).toBe(201);
  expect((await stack.api('POST', '/agents', { token, body: { _id: 'a1' } })).status).toBe(201);
  const sent = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c-1', text_message: 'before the upgrade' } });
  await waitForStatus(stack.api, token, sent.body._id, 'sent');
  const assigned = await stack.api('POST', '/clients/c-1/assign-agents', { token, body: { agents: [{ agent: 'a1', dt_until: new Date(Date.now() + 1500).toISOString() }] } });
  expect(assigned.status).toBe(200);
  const expiryId = await eventually(async () => {
    for await (const wf of stack.temporal.workflow.list({ query: `WorkflowType = 'assignmentExpiry' AND BusinessName = '${stack.business}'` })) return wf.workflowId;
    return undefined;
  });
  expect(await stack.temporal.workflow.getHandle(expiryId).result()).toEqual({ outcome: 'expired' });

  const traced = { workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } };
  for (const workflowId of [sent.body.workflow_id as string, expiryId]) {
    const history = await stack.temporal.workflow.getHandle(workflowId).fetchHistory();
    await expect(Worker.runReplayHistory(traced, history, workflowId)).resolves.toBeUndefined();
  }
});
