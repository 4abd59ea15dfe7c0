import { join } from 'node:path';
import { loadConfig } from '../../src/config/index';
import { testPort } from '../support/ports';
import { startDevServer, type RunningDevServer } from '../../src/stack/temporal-server';
import { eventually, startTestStack, uniqueName, type TestStack } from '../support/stack';
import { testDir } from '../support/temp-dir';

/*
 * A Temporal server of its own, persisted to a file like the one `npm start` runs, so that it can be
 * stopped and started again under a live assignment.
 */
let server: RunningDevServer;
let stack: TestStack;
let serverOptions: Parameters<typeof startDevServer>[1];

beforeAll(async () => {
  serverOptions = {
    dbFilename: join(await testDir('temporal-restart-'), 'temporal.sqlite'),
    port: await testPort(),
  };
  server = await startDevServer(loadConfig(), serverOptions);
  stack = await startTestStack({ temporalAddress: server.address });
});
afterAll(async () => {
  await stack?.stop();
  await server?.stop();
});

test('a pending expiry survives a restart of the Temporal server and fires on time afterwards', async () => {
  const token = stack.token('owner-1');
  const [clientId, agent] = [uniqueName('client'), uniqueName('agent')];
  await stack.api('POST', '/clients', { token, body: { _id: clientId } });
  await stack.api('POST', '/agents', { token, body: { _id: agent } });
  const dtUntil = new Date(Date.now() + 8000).toISOString();
  const res = await stack.api('POST', `/clients/${clientId}/assign-agents`, { token, body: { agents: [{ agent, dt_until: dtUntil }] } });
  expect(res.status).toBe(200);

  await stack.stopWorker();
  await server.stop();
  server = await startDevServer(loadConfig(), serverOptions);
  await stack.startWorker();

  const handle = stack.temporal.workflow.getHandle(res.body.assignments[0].workflow_id);
  expect((await handle.describe()).status.name).toBe('RUNNING');
  const statusOf = async () => (await stack.api('GET', `/clients/${clientId}/agents?status=all`, { token })).body.assignments[0].status;
  expect(await statusOf()).toBe('active');
  expect(await handle.result()).toEqual({ outcome: 'idle' });
  expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(dtUntil));
  await eventually(async () => (await statusOf()) === 'expired');
});
