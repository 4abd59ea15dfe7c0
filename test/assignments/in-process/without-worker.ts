import { eventually, startTestStack, uniqueName, type TestStack } from '../../support/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ assignTimeoutMs: 1500 });
});
afterAll(() => stack.stop());

test('a request made while no worker runs answers 504 naming its workflow, which completes when a worker returns', async () => {
  const token = stack.token('owner-1');
  const [clientId, agent] = [uniqueName('client'), uniqueName('agent')];
  await stack.api('POST', '/clients', { token, body: { _id: clientId } });
  await stack.api('POST', '/agents', { token, body: { _id: agent } });

  await stack.stopWorker();
  let res;
  try {
    res = await stack.api('POST', `/clients/${clientId}/assign-agents`, { token, body: { agents: [{ agent }] } });
  } finally {
    await stack.startWorker();
  }
  expect(res.status).toBe(504);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(res.headers.get('retry-after')).toBe('5');
  expect(res.body.detail).toContain(`GET /ext/v2/${stack.business}/clients/${clientId}/agents shows the outcome`);
  const workflowId = /client\/\S+/.exec(res.body.detail)?.[0];
  expect(workflowId).toBeDefined();
  expect((await stack.temporal.workflow.getHandle(workflowId!).describe()).status.name).toBe('RUNNING');

  const listed = await eventually(async () => {
    const r = await stack.api('GET', `/clients/${clientId}/agents`, { token });
    return r.body.assignments.length ? r.body.assignments : undefined;
  });
  expect(listed).toEqual([expect.objectContaining({ agent, status: 'active' })]);
});
