import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { loadConfig } from '../../src/config/index';
import { startEmbeddedPostgres } from '../../src/stack/postgres';
import { SERVER_DATABASES, startServerEngine } from '../../src/stack/temporal-server-engine';
import { waitForStatus } from '../support/helpers';
import { startNexusCaller, type NexusCaller } from '../support/nexus';
import { NEXUS_CALLER_NAMESPACE } from '../support/nexus-namespace';
import { clientWithAgents, plusMs, rotationAssignments } from '../support/rotation';
import { eventually, startTestStack, type TestStack } from '../support/stack';
import { rolloutTests } from '../operations/rollout';
import { testDir } from '../support/temp-dir';

/*
 * The end-to-end flows on the server engine: the Temporal server on PostgreSQL, as production runs it,
 * so that a change that works on the dev server alone fails here. When the run's stack is the dev
 * server (the default), this suite starts the server engine itself on the run's PostgreSQL, building
 * it first on a machine that lacks it (`npm run temporal:server -- --install-only` does that apart).
 * The rollout under load (operations/rollout.ts) runs here, on the engine production deploys on; npm start's
 * part of it (the build before kept by npm start) on the dev server, in operations/worker-versioning.test.ts.
 */

let stack: TestStack;
let caller: NexusCaller;
let token: string;
/** A URL of the PostgreSQL the server engine keeps its data on, as its administrator. */
let adminUrl: string;
let address: string;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  address = process.env.TEST_TEMPORAL_ADDRESS!;
  if (process.env.TEST_TEMPORAL_ENGINE === 'server') {
    adminUrl = process.env.TEST_DATABASE_ADMIN_URL!;
  } else {
    const dir = await testDir('crm-engine-server-');
    if (process.env.TEST_DATABASE_ADMIN_URL) adminUrl = process.env.TEST_DATABASE_ADMIN_URL;
    else {
      const postgres = await startEmbeddedPostgres({ dataDir: join(dir, 'postgres') });
      stops.push(postgres.stop);
      adminUrl = postgres.adminUrl();
    }
    const engine = await startServerEngine({ adminUrl, TOOLS_DIR: loadConfig().TOOLS_DIR, dir, namespaces: [NEXUS_CALLER_NAMESPACE], log: (line) => console.log(line) });
    stops.push(engine.stop);
    address = engine.address;
  }
  stack = await startTestStack({ temporalAddress: address, rotationMinPeriodMs: 1000 });
  caller = await startNexusCaller({ taskQueue: stack.taskQueue, address });
  token = stack.token('engine-user');
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c-1', phone: '+14155550142' } })).status).toBe(201);
}, 15 * 60_000);

afterAll(async () => {
  await caller?.stop();
  await stack?.stop();
  for (const stop of stops.reverse()) await stop();
});

async function send(body: Record<string, unknown>) {
  const res = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c-1', ...body } });
  expect(res.status).toBe(202);
  return res.body as { _id: string; send_at: string; workflow_id: string };
}

/** The workflow ids the server's own visibility database holds: proof the run is on PostgreSQL. */
async function inServerVisibility(workflowId: string): Promise<boolean> {
  const url = new URL(adminUrl);
  url.pathname = `/${SERVER_DATABASES.visibility}`;
  const client = new PgClient({ connectionString: url.toString() });
  await client.connect();
  try {
    return ((await client.query('SELECT 1 FROM executions_visibility WHERE workflow_id = $1', [workflowId])).rowCount ?? 0) > 0;
  } finally {
    await client.end();
  }
}

test('a message sent now is sent once, and its workflow is kept in the server’s PostgreSQL', async () => {
  const message = await send({ text_message: 'Now, on the server engine' });
  const sent = await waitForStatus(stack.api, token, message._id, 'sent');
  expect(sent).toMatchObject({ attempts: 1, error: null });
  await expect(stack.temporal.workflow.getHandle(message.workflow_id).result()).resolves.toEqual({ outcome: 'sent' });
  await eventually(() => inServerVisibility(message.workflow_id));
});

test('a delayed message waits for its send_at, then is sent', async () => {
  const message = await send({ text_message: 'Two seconds later', delay: '2s' });
  expect((await stack.api('GET', `/messages/${message._id}`, { token })).body.status).toBe('scheduled');
  const sent = await waitForStatus(stack.api, token, message._id, 'sent');
  expect(Date.parse(sent.dispatched_at)).toBeGreaterThanOrEqual(Date.parse(message.send_at));
});

test('a delayed message canceled before its send_at is never sent', async () => {
  const message = await send({ text_message: 'Canceled in time', delay: '30s' });
  const canceled = await stack.api('POST', `/messages/${message._id}/cancel`, { token });
  expect(canceled.status).toBe(200);
  expect(canceled.body).toMatchObject({ _id: message._id, status: 'canceled' });
  // A user's cancel ends the run as Temporal's Canceled.
  await expect(stack.temporal.workflow.getHandle(message.workflow_id).result()).rejects.toThrow('Workflow execution cancelled');
  expect((await stack.api('GET', `/messages/${message._id}`, { token })).body).toMatchObject({ status: 'canceled', dispatched_at: null });
});

test('an assignment expires at its dt_until, and operators find it by its search attributes', async () => {
  const { clientId, agents } = await clientWithAgents(stack, token, 1);
  const dtUntil = new Date(Date.now() + 3000).toISOString();
  const res = await stack.api('POST', `/clients/${clientId}/assign-agents`, { token, body: { agents: [{ agent: agents[0], dt_until: dtUntil }] } });
  expect(res.status).toBe(200);
  const [assignment] = res.body.assignments as { workflow_id: string; status: string }[];
  expect(assignment.status).toBe('active');

  const query = `BusinessName = '${stack.business}' AND ClientId = '${clientId}' AND AgentIds = '${agents[0]}'`;
  const found = await eventually(async () => {
    const ids: string[] = [];
    for await (const run of stack.temporal.workflow.list({ query })) ids.push(run.workflowId);
    return ids.length ? ids : undefined;
  });
  expect(found).toContain(assignment.workflow_id);

  await expect(stack.temporal.workflow.getHandle(assignment.workflow_id).result()).resolves.toEqual({ outcome: 'idle' });
  const history = await stack.api('GET', `/clients/${clientId}/agents?status=all`, { token });
  expect(history.body.assignments).toEqual([expect.objectContaining({ agent: agents[0], status: 'expired', ended_by: { actor: 'system', reason: 'expiry' } })]);
});

test('a rotation hands its first period to the first agent, then the second period to the next', async () => {
  const { clientId, agents } = await clientWithAgents(stack, token, 2);
  const put = await stack.api('PUT', `/clients/${clientId}/rotation`, { token, body: { agents, period: '2s' } });
  expect(put.status).toBe(201);
  const startsAt = put.body.starts_at as string;
  const periods = await eventually(async () => {
    const made = await rotationAssignments(stack, token, clientId);
    return made.length >= 2 && made[0].status === 'expired' ? made : undefined;
  }, 30_000);
  expect(periods.slice(0, 2).map((p) => [p.agent, p.dt_until])).toEqual([
    [agents[0], plusMs(startsAt, 2000)],
    [agents[1], plusMs(startsAt, 4000)],
  ]);
  expect((await stack.api('DELETE', `/clients/${clientId}/rotation`, { token })).status).toBe(200);
});

test('another namespace’s workflow sends a message through the Nexus endpoint and awaits its outcome', async () => {
  const text = `Through Nexus ${randomUUID()}`;
  const [outcome] = await caller.call([
    { operation: 'sendMessage', input: { business: stack.business, user: 'engine-user', message_type: 'text', client: 'c-1', text_message: text } },
  ]);
  expect(outcome).toEqual({ ok: { outcome: 'sent' } });
  const listed = (await stack.api('GET', '/messages?limit=100', { token })).body.messages.filter((m: { text_message: string }) => m.text_message === text);
  expect(listed).toEqual([expect.objectContaining({ status: 'sent', client: 'c-1' })]);
});

// Its workers stop in its own afterAll, which runs before this file's (the engine's stop).
describe('Worker Versioning on the server engine', () => {
  rolloutTests(() => address, 'under load');
});
