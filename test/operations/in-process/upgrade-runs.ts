import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { clientWorkflowId, RUN_GENERATION, taskQueuesOf, UPGRADE_TERMINATE_REASON } from '../../../src/domain';
import { runObservedWorker } from '../../../src/main/services';
import { startFakeHubspot, type FakeHubspot } from '../../../src/stack/crm-fakes/hubspot';
import { connectedStack } from '../../support/crm';
import { createMigratedDatabase } from '../../support/database';
import { eventually } from '../../support/helpers';
import { entryPointEnv, PROJECT_ROOT } from '../../support/process';
import type { TestStack } from '../../support/stack';
import { testDirSync } from '../../support/temp-dir';

/*
 * A database and namespace from before workflow generation 2, upgraded by this build's first start
 * (docs/design.md, "Upgrading runs from before Worker Versioning"). The fixture is made by today's build:
 * its worker runs the workflow bundle of main at 16464f1, the commit before the patch branches and the
 * retired types went (test/fixtures/upgrade/workflows-16464f1.js.gz, built by
 * scripts/build-upgrade-fixture.ts), with this build's activities (that code calls none that this build
 * lacks on these paths) behind this build's API (which starts the same workflows with the same inputs).
 * So the open runs carry today's histories, patch markers and all: a delayed message, expiring
 * assignments, a rotation, a lead its policy queued (its run mid-flight, waiting for the queue), and a
 * run of a retired type (an `assignmentExpiry` an older build left open, which today's build still ran).
 * Then today's worker stops and this build's starts as a deployment's does (runObservedWorker), on a
 * database of its own (the suites' shared one is marked upgraded by the global setup): it ends those runs
 * and starts their clocks again from the rows. Each due thing happens once, at its time; a second upgrade,
 * by hand (`npm run upgrade-runs`), made while the new clocks wait, does nothing.
 */

const TODAY = gunzipped(join(__dirname, '..', '..', 'fixtures', 'upgrade', 'workflows-16464f1.js.gz'));
/**
 * From the fixture's anchor to the first due thing: time for the fixture to settle and the worker to change,
 * on a loaded machine too (2.9 s at load 7; 14 s once with three jest workers, when this was 12 s).
 */
const DUE_IN_MS = 15_000;
/** The due things after the first, this far apart. */
const STEP_MS = 500;
/** A due thing happens at its time: not before it, and within this after it. */
const ON_TIME_MS = 5_000;

let stack: TestStack;
let hubspot: FakeHubspot;
let token: string;
let inboundUrl: string;
let observed: Awaited<ReturnType<typeof runObservedWorker>> | undefined;

function gunzipped(path: string): string {
  const file = join(testDirSync('crm-upgrade-'), 'workflows.js');
  writeFileSync(file, gunzipSync(readFileSync(path)));
  return file;
}

beforeAll(async () => {
  const databaseUrl = await createMigratedDatabase('upgrade');
  hubspot = await startFakeHubspot();
  ({ stack, token, inboundUrl } = await connectedStack('hubspot', {
    env: { HUBSPOT_API_URL: hubspot.url, DATABASE_URL: databaseUrl, WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE! },
    stack: { workflowBundle: TODAY, rotationMinPeriodMs: 1000 },
    agents: ['a1', 'a2', 'a3', 'r1', 'r2'],
    before: async (stack, token) => {
      expect((await stack.api('PUT', '/teams/sales', { token, body: { name: 'Sales', members: [{ agent: 'a1' }] } })).status).toBe(200);
      expect((await stack.api('PUT', '/routing-policies/sales', { token, body: { team: 'sales', capacity: 1, working_hours: false } })).status).toBe(200);
    },
    body: { policy: 'sales', settings: { client_secret: hubspot.clientSecret, access_token: hubspot.accessToken }, agent_map: { '501': 'a1' } },
  }));
}, 60_000);
afterAll(async () => {
  await observed?.stop();
  await stack?.stop();
  await hubspot?.stop();
});

const at = (anchor: number, ms: number) => new Date(anchor + ms).toISOString();
const writesOf = (id: number) => hubspot.writes.filter((w) => w.id === String(id));
const clientPkOf = async (id: string) => (await stack.prisma.client.findFirstOrThrow({ where: { business: stack.business, id } })).pk;
const eventsOf = async (type: string, clientId: string) => stack.prisma.event.count({ where: { type, clientPk: await clientPkOf(clientId) } });

async function newLead(id: number): Promise<void> {
  expect(await hubspot.deliver(inboundUrl, [hubspot.createContact(id, { firstname: `Lead${id}`, phone: '+14155550142' })])).toBe(200);
}

async function assign(clientId: string, agent: string, dtUntil: string) {
  const res = await stack.api('POST', `/clients/${clientId}/assign-agents`, { token, body: { agents: [{ agent, dt_until: dtUntil }] } });
  expect(res.status).toBe(200);
}

/** The runs of the suite's task queues in this status. */
async function runsIn(status: 'Running' | 'Terminated'): Promise<WorkflowExecutionInfo[]> {
  const queues = Object.values(taskQueuesOf(stack.taskQueue)).map((q) => `'${q}'`).join(', ');
  const runs: WorkflowExecutionInfo[] = [];
  for await (const run of stack.temporal.workflow.list({ query: `ExecutionStatus = '${status}' AND TaskQueue IN (${queues})` })) runs.push(run);
  return runs;
}

/**
 * Every open run has had its first workflow task on today's worker (a delayed one has none yet): its
 * history is today's build's. Waits until the listing shows a run of each of `types` (it lags a little).
 */
async function settledOnTodaysWorker(types: string[]): Promise<WorkflowExecutionInfo[]> {
  return eventually(async () => {
    const runs = await runsIn('Running');
    if (!types.every((type) => runs.some((run) => run.type === type))) return undefined;
    for (const run of runs) {
      const history = await stack.temporal.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
      const events = history.events ?? [];
      // A delayed start (a message's send_at) schedules no task before it is due.
      if (events.some((e) => e.workflowTaskScheduledEventAttributes) && !events.some((e) => e.workflowTaskCompletedEventAttributes)) return undefined;
    }
    return runs;
  }, 20_000);
}

/** A run of an older build than today's, which today's still ran: a per-pair expiry run its row names. */
async function retiredExpiryRun(clientId: string, agent: string, dtUntil: string): Promise<string> {
  const clientPk = await clientPkOf(clientId);
  await stack.temporal.workflow.getHandle(clientWorkflowId({ business: stack.business, clientId, clientPk })).terminate('its clock handed to an older build\'s run, for the test');
  const row = await stack.prisma.assignment.findFirstOrThrow({ where: { clientPk, status: 'active' } });
  const workflowId = ['assignment', stack.business, clientId, agent, clientPk].join('/');
  await stack.prisma.assignment.update({ where: { id: row.id }, data: { workflowId } });
  await stack.temporal.workflow.start('assignmentExpiry', { workflowId, taskQueue: stack.taskQueue, args: [{ business: stack.business, clientId, agentId: agent, clientPk, agentPk: row.agentPk, dtUntil }] });
  return workflowId;
}

test('runs of today\'s build are ended and their clocks started again from the rows: each due thing happens once, at its time', async () => {
  // Today's build: a lead routed to a1 (the policy's whole capacity), and a second one it queues.
  const [first, second] = [50_000 + Math.floor(Math.random() * 1000), 52_000 + Math.floor(Math.random() * 1000)];
  await newLead(first);
  await eventually(async () => writesOf(first).some((w) => w.status === 200), 30_000);
  const firstLead = stack.temporal.workflow.getHandle(`crm-lead/${stack.business}/hubspot/${first}`);
  await eventually(async () => (await firstLead.describe()).status.name === 'COMPLETED' || undefined, 30_000);
  await newLead(second);
  await eventually(async () => ((await stack.api('GET', '/routing-policies/sales/queue', { token })).body.queue?.length === 1 ? true : undefined), 30_000);
  // The clients before the anchor: they set no clock, and the time from the anchor to the upgrade is what must fit.
  for (const _id of ['c1', 'c2', 'c3', 'c4']) expect((await stack.api('POST', '/clients', { token, body: { _id, phone: '+14155550100' } })).status).toBe(201);

  // Then what falls due after the change of worker: a1's hold on the first lead (which frees the policy for
  // the second), a delayed message, a plain assignment, one held by a retired type's run, a rotation's boundary.
  const anchor = Date.now();
  await assign(`hubspot:${first}`, 'a1', at(anchor, DUE_IN_MS));
  const message = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'See you at 3', send_at: at(anchor, DUE_IN_MS + STEP_MS) } });
  expect(message.status).toBe(202);
  await assign('c2', 'a2', at(anchor, DUE_IN_MS + 2 * STEP_MS));
  await assign('c4', 'a3', at(anchor, DUE_IN_MS + 3 * STEP_MS));
  const retired = await retiredExpiryRun('c4', 'a3', at(anchor, DUE_IN_MS + 3 * STEP_MS));
  // A period of whole seconds from the PUT, itself after the anchor.
  const rotation = await stack.api('PUT', '/clients/c3/rotation', { token, body: { agents: ['r1', 'r2'], period: `${DUE_IN_MS / 1000}s` } });
  expect(rotation.status).toBe(201);
  const boundary = rotation.body.next_change_at as string;
  const before = await settledOnTodaysWorker(['assignmentExpiry', 'clientOwnership', 'processCrmLead', 'routingQueue', 'sendMessage']);

  // This build's first start.
  await stack.stopWorker();
  observed = await runObservedWorker({ ...stack.services }, 0);
  await observed.upgraded;
  console.log(`upgrade-runs: upgraded ${Date.now() - anchor} ms after the anchor, the first due thing at ${DUE_IN_MS} ms`);
  expect(Date.now()).toBeLessThan(anchor + DUE_IN_MS);
  expect(await stack.prisma.runUpgrade.findUnique({ where: { generation: RUN_GENERATION } })).toMatchObject({ finishedAt: expect.any(Date) });

  // Ended with a reason the UI shows: the retired type's run, and the runs whose code lost a branch; the routing queue's goes on.
  const ended = before.filter((r) => r.type !== 'routingQueue');
  for (const run of ended) {
    const described = await stack.temporal.workflow.getHandle(run.workflowId, run.runId).describe();
    expect({ type: run.type, status: described.status.name }).toEqual({ type: run.type, status: 'TERMINATED' });
  }
  const history = await stack.temporal.workflow.getHandle(retired).fetchHistory();
  expect(history.events!.at(-1)!.workflowExecutionTerminatedEventAttributes?.reason).toBe(UPGRADE_TERMINATE_REASON);
  const queueRun = before.find((r) => r.type === 'routingQueue')!;
  expect((await stack.temporal.workflow.getHandle(queueRun.workflowId, queueRun.runId).describe()).status.name).toBe('RUNNING');

  // Again, by hand (npm run upgrade-runs), while the new clocks wait (only an upgrade ends a run): nothing to do, and no run ended.
  // Counted once the listing, which lags behind a Terminate, shows the runs ended so far: the upgrade's and the test's own of c4.
  const c4Run = clientWorkflowId({ business: stack.business, clientId: 'c4', clientPk: await clientPkOf('c4') });
  const terminatedBefore = await eventually(async () => {
    const listed = await runsIn('Terminated');
    const shown = ended.every((run) => listed.some((t) => t.runId === run.runId)) && listed.some((t) => t.workflowId === c4Run);
    return shown ? listed.length : undefined;
  });
  const { config } = stack.services;
  const command = await promisify(execFile)(join(PROJECT_ROOT, 'node_modules/.bin/tsx'), ['src/main/upgrade-runs.ts'], {
    cwd: PROJECT_ROOT,
    env: entryPointEnv({ DATABASE_URL: config.DATABASE_URL, TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE: stack.taskQueue, DATA_DIR: testDirSync('crm-upgrade-data-') }),
    timeout: 60_000,
  });
  expect(JSON.parse(command.stdout.trim().split('\n').at(-1)!)).toEqual({ generation: RUN_GENERATION, upgraded: false });
  expect(await terminatedCount()).toBe(terminatedBefore);

  // Each due thing, once and at its time (the expiries watched together).
  const [c2, c4] = await Promise.all([expiredOnce('c2', DUE_IN_MS + 2 * STEP_MS), expiredOnce('c4', DUE_IN_MS + 3 * STEP_MS), expiredOnce(`hubspot:${first}`, DUE_IN_MS)]);
  expect(c2.workflowId).toBe(clientWorkflowId({ business: stack.business, clientId: 'c2', clientPk: c2.clientPk }));
  expect(c4.workflowId).toBe(clientWorkflowId({ business: stack.business, clientId: 'c4', clientPk: c4.clientPk }));

  const sent = await eventually(async () => {
    const row = await stack.prisma.message.findUniqueOrThrow({ where: { id: message.body._id } });
    return row.status === 'sent' ? row : undefined;
  }, 30_000);
  expect(sent.sentAt!.getTime() - sent.sendAt.getTime()).toBeGreaterThanOrEqual(0);
  expect(sent.sentAt!.getTime() - sent.sendAt.getTime()).toBeLessThan(ON_TIME_MS);
  expect(await stack.prisma.logDelivery.count({ where: { messageId: sent.id } })).toBe(1);

  // The queue assigns the second lead to a1 once a1's hold ended; its owner is written back once.
  await eventually(async () => writesOf(second).some((w) => w.status === 200), 30_000);
  expect(writesOf(second)).toEqual([{ id: String(second), owner: '501', status: 200 }]);
  const held = (await stack.api('GET', `/clients/hubspot:${second}/agents`, { token })).body.assignments;
  expect(held).toEqual([expect.objectContaining({ agent: 'a1' })]);
  expect(Date.parse(held[0].assigned_at)).toBeGreaterThanOrEqual(anchor + DUE_IN_MS);
  expect(Date.parse(held[0].assigned_at)).toBeLessThan(anchor + DUE_IN_MS + ON_TIME_MS);

  // The rotation hands r2 its period at the boundary, once.
  const periods = await eventually(async () => {
    const all = (await stack.api('GET', '/clients/c3/agents?status=all', { token })).body.assignments as { agent: string; assigned_at: string; status: string }[];
    return all.length >= 2 ? all : undefined;
  }, 30_000);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const after = (await stack.api('GET', '/clients/c3/agents?status=all', { token })).body.assignments as { agent: string; assigned_at: string; status: string }[];
  expect(after.map((a) => [a.agent, a.status]).sort()).toEqual([['r1', 'expired'], ['r2', 'active']]);
  const r2 = periods.find((a) => a.agent === 'r2')!;
  expect(Date.parse(r2.assigned_at)).toBeGreaterThanOrEqual(Date.parse(boundary));
  expect(Date.parse(r2.assigned_at)).toBeLessThan(Date.parse(boundary) + ON_TIME_MS);

  async function expiredOnce(clientId: string, dueInMs: number) {
    const clientPk = await clientPkOf(clientId);
    const row = await eventually(async () => {
      const found = await stack.prisma.assignment.findFirst({ where: { clientPk, status: 'expired' } });
      return found ?? undefined;
    }, 30_000);
    expect(row.endedAt!.getTime()).toBeGreaterThanOrEqual(anchor + dueInMs);
    expect(row.endedAt!.getTime()).toBeLessThan(anchor + dueInMs + ON_TIME_MS);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await eventsOf('assignment.expired', clientId)).toBe(1);
    return row;
  }
}, 120_000);

const terminatedCount = async () => (await runsIn('Terminated')).length;
