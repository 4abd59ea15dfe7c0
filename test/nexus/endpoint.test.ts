import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { ensureNamespace, ensureNexusEndpoint, provideNexusEndpoint } from '../../src/stack/nexus-endpoint';

/* The endpoint `npm start` creates: made once, kept, and pointed at the worker's task queue when that changes. */

let connection: Connection;
beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
});
afterAll(() => connection?.close());

const endpointName = () => `crmtest${randomUUID().replace(/-/g, '').slice(0, 12)}`;

async function endpointNamed(name: string) {
  const { endpoints } = await connection.operatorService.listNexusEndpoints({ name });
  return endpoints?.[0];
}

test('creates the endpoint once, and points it at a new task queue', async () => {
  const name = endpointName();
  const id = await ensureNexusEndpoint(connection, { name, namespace: 'default', taskQueue: 'tq-1' });
  const created = await endpointNamed(name);
  expect(created?.spec?.target?.worker).toEqual(expect.objectContaining({ namespace: 'default', taskQueue: 'tq-1' }));

  expect(await ensureNexusEndpoint(connection, { name, namespace: 'default', taskQueue: 'tq-1' })).toBe(id);
  expect((await endpointNamed(name))?.version?.toString()).toBe(created?.version?.toString());

  expect(await ensureNexusEndpoint(connection, { name, namespace: 'default', taskQueue: 'tq-2' })).toBe(id);
  expect((await endpointNamed(name))?.spec?.target?.worker).toEqual(expect.objectContaining({ taskQueue: 'tq-2' }));
});

test('on a cluster it did not start, npm start only looks the endpoint up and says how to create it', async () => {
  const name = endpointName();
  const target = { name, namespace: 'default', taskQueue: 'tq-x' };
  expect(await provideNexusEndpoint(connection, target, false)).toBe(
    `endpoint ${name} does not lead to this worker (namespace default, task queue tq-x); an operator runs: ` +
      `temporal operator nexus endpoint create --name ${name} --target-namespace default --target-task-queue tq-x`,
  );
  expect(await endpointNamed(name)).toBeUndefined();
  expect(await provideNexusEndpoint(connection, target, true)).toBe(`endpoint ${name} → namespace default, task queue tq-x`);
  expect(await provideNexusEndpoint(connection, target, false)).toBe(`endpoint ${name} → namespace default, task queue tq-x`);
});

test('a caller namespace that does not exist yet is registered and served', async () => {
  const namespace = `crm-callers-${randomUUID().slice(0, 8)}`;
  await ensureNamespace(connection, namespace);
  await expect(connection.workflowService.describeNamespace({ namespace })).resolves.toBeDefined();
  await ensureNamespace(connection, namespace);
});
