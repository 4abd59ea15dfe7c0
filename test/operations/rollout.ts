import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { createLogProvider } from '../../src/activities/providers/log';
import type { MessageProvider } from '../../src/activities/providers';
import { housekeepingWorkflowId } from '../../src/domain';
import { serveOlderBuilds } from '../../src/main/older-builds';
import { askForWebhookSweep, ensureHousekeeping } from '../../src/starters/housekeeping-workflow';
import { runWorker } from '../../src/main/services';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../../src/paths';
import type { RunningWorker } from '../../src/worker';
import { wakeClientRunsOnOlderVersions } from '../../src/worker/version-wake';
import { buildIdOf, versionName, type DeploymentVersion } from '../../src/worker/versioning';
import { eventually, startStackFor, type TestStack } from '../support/stack';

/*
 * The tests of a rollout under load (docs/operations.md, "Deploying a new worker build"): a second build, whose client
 * and message runs would fail the first's histories on replay, polls beside the first and becomes current.
 * Runs begun on the first finish there, the clients' runs move to the second, nothing is sent twice or
 * lost, every assignment expires once, and the first version drains, so its worker can stop.
 */
// A campaign goes out at 2 messages a second, 2 a chunk: in flight for seconds, across a switch of versions.
const VERSIONED = { WORKER_VERSIONING: 'on', WORKER_SET_CURRENT: 'always', MESSAGE_SEND_RATE_PER_SECOND: '2', MESSAGE_BATCH_CHUNK_SIZE: '2' };
const CLIENTS = 12;
const EARLY_MESSAGES = 24;
const DUE_AT_ONCE = 8;
const CAMPAIGN = 16;
const LATE_CLIENTS = 4;
const LATE_MESSAGES = 8;
// A run whose first wake came before the new routing reached it is woken again this much later.
const WAKE_AGAIN_AFTER_MS = 3_000;
const HOUSEKEEPING = { sweepEveryMs: 3_600_000, sweepGraceMs: 10_000 };

/**
 * Which of the two promises a file proves, each on the engine it is about: the rollout under load is how production
 * deploys (the server engine); the build before kept by npm start is npm start's (the dev server).
 */
export type RolloutPart = 'under load' | 'npm start after a change';

/** Registers the rollout's tests on the Temporal server at `temporalAddress()` (the run's own when undefined), read in beforeAll. */
export function rolloutTests(temporalAddress: () => string | undefined, part: RolloutPart): void {
  const handedOver = new Map<string, number>();
  let stack: TestStack;
  let token: string;
  let nextCode: string;
  let next: RunningWorker | undefined;

  /** The log provider, counting each hand-over of a message. */
  const countingProvider: MessageProvider = {
    name: 'log',
    deliver: (message) => {
      handedOver.set(message.id, (handedOver.get(message.id) ?? 0) + 1);
      return createLogProvider(stack.prisma).deliver(message);
    },
  };

  beforeAll(async () => {
    const silent = () => undefined;
    const [bundle, started] = await Promise.all([
      bundleWorkflowCode({
        workflowsPath: require.resolve('../fixtures/next-build/workflows'),
        workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
        logger: { log: silent, trace: silent, debug: silent, info: silent, warn: silent, error: console.error },
      }),
      startStackFor('rollout-user', { env: VERSIONED, provider: countingProvider, temporalAddress: temporalAddress() }),
    ]);
    nextCode = bundle.code;
    ({ stack, token } = started);
  }, 180_000);

  afterAll(async () => {
    await next?.stop();
    await stack?.stop();
  });

  /** Runs of this file's deployment only: it is named after the stack's task queue. */
  const count = async (query: string) => (await stack.temporal.workflow.count(`${query} AND TemporalWorkerDeployment = '${stack.taskQueue}'`)).count;
  const secondsFromNow = (s: number) => new Date(Date.now() + s * 1000).toISOString();

  /** A client with an agent assigned until `dtUntil`; returns the client run's id. */
  async function clientAssignedUntil(clientId: string, dtUntil: string): Promise<string> {
    expect((await stack.api('POST', '/clients', { token, body: { _id: clientId, phone: '+14155550100' } })).status).toBe(201);
    expect((await stack.api('POST', '/agents', { token, body: { _id: `agent-${clientId}` } })).status).toBe(201);
    const assigned = await stack.api('POST', `/clients/${clientId}/assign-agents`, { token, body: { agents: [{ agent: `agent-${clientId}`, dt_until: dtUntil }] } });
    expect(assigned.status).toBe(200);
    return assigned.body.assignments[0].workflow_id;
  }

  async function message(clientId: string, delaySeconds: number): Promise<string> {
    const body = { message_type: 'text', client: clientId, text_message: `to ${clientId}`, ...(delaySeconds > 0 && { delay: `${delaySeconds}s` }) };
    const res = await stack.api('POST', '/messages', { token, body });
    expect(res.status).toBe(202);
    return res.body._id;
  }

  /** A campaign to `size` phones; returns its messages. */
  async function campaign(size: number, first: number): Promise<string[]> {
    const recipients = Array.from({ length: size }, (_, k) => ({ client_phone: `+1415555${first + k}` }));
    const res = await stack.api('POST', '/messages/batch', { token, body: { message_type: 'text', text_message: 'Campaign', recipients } });
    expect(res.status).toBe(202);
    return res.body.results.map((r: { _id: string }) => r._id);
  }

  const runningOn = (type: string, version: DeploymentVersion) => count(`WorkflowType = '${type}' AND ExecutionStatus = 'Running' AND TemporalWorkerDeploymentVersion = '${versionName(version)}'`);
  const sentOnce = async (ids: string[]) => {
    await eventually(async () => ((await stack.prisma.message.count({ where: { id: { in: ids }, status: 'sent' } })) === ids.length ? true : undefined), 90_000, 500);
    expect(ids.filter((id) => handedOver.get(id) !== 1)).toEqual([]);
  };

  if (part === 'under load') test('a second build beside the first under load: runs begun on the first finish there, client runs and the housekeeping run move, nothing lost or doubled, the first drains and stops', async () => {
    const first = { deploymentName: stack.taskQueue, buildId: buildIdOf(readFileSync(process.env.TEST_WORKFLOW_BUNDLE!, 'utf8')) };
    const second = { deploymentName: stack.taskQueue, buildId: buildIdOf(nextCode) };
    expect(second.buildId).not.toBe(first.buildId);

    // On the first build: clients whose assignments end over the next 17 s, messages due now and within 17 s (a message
    // due later starts when due: on the version current then), and a campaign still sending at the switch. The switch
    // comes 5-8 s in on a loaded machine: many clocks and messages fall due on either side of it. The last client's
    // clock is later, 28 s: its run must still be open when the switch comes, however late, to move and be checked.
    const clientRuns: string[] = [];
    for (let i = 0; i < CLIENTS; i++) clientRuns.push(await clientAssignedUntil(`c${i}`, secondsFromNow(i === CLIENTS - 1 ? 28 : 6 + i)));
    const early: string[] = [];
    const earlyDue: number[] = [];
    for (let j = 0; j < EARLY_MESSAGES; j++) {
      const delay = j < DUE_AT_ONCE ? 0 : Math.round(j * 0.75);
      earlyDue.push(Date.now() + delay * 1000);
      early.push(await message(`c${j % CLIENTS}`, delay));
    }
    const campaignMessages = await campaign(CAMPAIGN, 1000);
    await ensureHousekeeping(stack.temporal, stack.taskQueue, HOUSEKEEPING);
    await eventually(async () => ((await runningOn('sendMessageBatch', first)) === 1 && (await runningOn('housekeeping', first)) === 1 ? true : undefined), 20_000, 250);
    expect(await runningOn('clientOwnership', first)).toBeGreaterThan(0);

    // The second build polls beside it and becomes current; the client runs asleep on the first are woken to move.
    const switching = Date.now();
    next = await runWorker({ ...stack.services, provider: countingProvider }, { workflowBundle: { code: nextCode }, versioning: { deploymentName: stack.taskQueue, setCurrent: 'always' } });
    expect(next.current).toBe(true);
    const switched = Date.now();
    const woken = new Map<string, number>();
    await eventually(async () => {
      await wakeClientRunsOnOlderVersions(stack.temporal, second, woken, WAKE_AGAIN_AFTER_MS);
      return (await runningOn('clientOwnership', first)) === 0 || undefined;
    }, 60_000, 1000);
    // A moved run closes on the first before visibility lists its next run on the second.
    await eventually(async () => ((await runningOn('clientOwnership', second)) > 0 ? true : undefined), 20_000, 500);
    // The housekeeping run moves at its next loop (2 minutes at most; a sweep asked for wakes it at once).
    await askForWebhookSweep(stack.temporal, stack.taskQueue, HOUSEKEEPING);
    await eventually(async () => ((await runningOn('housekeeping', second)) === 1 ? true : undefined), 30_000, 500);

    // Work begun after the switch starts on the second.
    for (let i = 0; i < LATE_CLIENTS; i++) clientRuns.push(await clientAssignedUntil(`late${i}`, secondsFromNow(5 + 2 * i)));
    const late: string[] = [];
    for (let j = 0; j < LATE_MESSAGES; j++) late.push(await message(`late${j % LATE_CLIENTS}`, j % 2 === 0 ? 0 : 3));

    // The first drains (its campaign sent): then its worker stops, and the second serves the rest.
    await eventually(async () => ((await count(`ExecutionStatus = 'Running' AND TemporalWorkerDeploymentVersion = '${versionName(first)}'`)) === 0 ? true : undefined), 90_000, 1000);
    await stack.stopWorker();

    await sentOnce([...early, ...late, ...campaignMessages]);
    const allClients = [...Array.from({ length: CLIENTS }, (_, i) => `c${i}`), ...Array.from({ length: LATE_CLIENTS }, (_, i) => `late${i}`)];
    const expired = async () => (await stack.prisma.assignment.count({ where: { client: { business: stack.business }, status: 'expired' } })) === allClients.length || undefined;
    await eventually(expired, 90_000, 500);
    const expiries = await stack.prisma.event.groupBy({ by: ['clientPk'], where: { business: stack.business, type: 'assignment.expired' }, _count: { _all: true } });
    expect(expiries.map((e) => e._count._all)).toEqual(allClients.map(() => 1));

    // Where each ran: the campaign and the messages due at once on the first build, those due after the switch on
    // the second; the clients that still held a clock at the switch moved.
    const ranOn = async (type: string, version: DeploymentVersion) => count(`WorkflowType = '${type}' AND TemporalWorkerDeploymentVersion = '${versionName(version)}'`);
    // A message due while the second was becoming current may start on either; how long that takes depends on the machine's load.
    const dueBefore = earlyDue.filter((due) => due < switching).length;
    const dueAfter = earlyDue.filter((due) => due > switched + 1000).length;
    expect(dueAfter).toBeGreaterThan(0);
    await eventually(async () => ((await ranOn('sendMessage', first)) + (await ranOn('sendMessage', second)) === EARLY_MESSAGES + LATE_MESSAGES ? true : undefined), 20_000, 500);
    expect(await ranOn('sendMessage', first)).toBeGreaterThanOrEqual(dueBefore);
    expect(await ranOn('sendMessage', second)).toBeGreaterThanOrEqual(dueAfter + LATE_MESSAGES);
    expect(await ranOn('sendMessageBatch', first)).toBe(1);
    expect(await ranOn('sendMessageBatch', second)).toBe(0);
    const lastClientRun = clientRuns[CLIENTS - 1];
    expect(await count(`WorkflowId = '${lastClientRun}' AND TemporalWorkerDeploymentVersion = '${versionName(second)}'`)).toBeGreaterThan(0);
    await stack.temporal.workflow.getHandle(housekeepingWorkflowId(stack.taskQueue)).terminate('the test is over');

    // Which only versioning made possible: the first build's run of that client fails on replay in the second build.
    const firstRun = stack.temporal.workflow.getHandle(lastClientRun, (await stack.temporal.workflow.getHandle(lastClientRun).describe()).raw.workflowExecutionInfo?.firstRunId ?? undefined);
    await expect(Worker.runReplayHistory({ workflowBundle: { code: nextCode } }, await firstRun.fetchHistory(), lastClientRun)).rejects.toHaveProperty('name', 'DeterminismViolationError');
  }, 300_000);

  if (part === 'npm start after a change') test('npm start after a change of workflow code: the build before keeps a worker (from its kept bundle) until its last run ends, then goes', async () => {
    // The build before is the second one, made current, and the first comes back: a rollback, as npm start sees it.
    await stack.stopWorker();
    next = await runWorker({ ...stack.services, provider: countingProvider }, { workflowBundle: { code: nextCode }, versioning: { deploymentName: stack.taskQueue, setCurrent: 'always' } });
    expect(next.current).toBe(true);
    const before = { deploymentName: stack.taskQueue, buildId: buildIdOf(nextCode) };
    const clientRun = await clientAssignedUntil('older-build', secondsFromNow(3600));
    const campaignMessages = await campaign(10, 2000);
    await eventually(async () => ((await runningOn('sendMessageBatch', before)) === 1 && (await runningOn('clientOwnership', before)) === 1 ? true : undefined), 20_000, 250);
    await next!.stop();
    next = undefined;

    const dir = await mkdtemp(join(tmpdir(), 'crm-builds-'));
    await writeFile(join(dir, `${before.buildId}.js`), nextCode);
    const services = { ...stack.services, provider: countingProvider };
    const restarted = await runWorker(services, { workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! }, versioning: { deploymentName: stack.taskQueue, setCurrent: 'always' } });
    const older = await serveOlderBuilds(services, restarted, dir, 1000);
    try {
      expect(readdirSync(dir).sort()).toEqual([`${before.buildId}.js`, `${restarted.version!.buildId}.js`].sort());
      const woken = new Map<string, number>();
      await eventually(async () => {
        await wakeClientRunsOnOlderVersions(stack.temporal, restarted.version!, woken, WAKE_AGAIN_AFTER_MS);
        return (await count(`ExecutionStatus = 'Running' AND TemporalWorkerDeploymentVersion = '${versionName(before)}'`)) === 0 || undefined;
      }, 60_000, 1000);
      await sentOnce(campaignMessages);
      expect(await count(`WorkflowId = '${clientRun}' AND ExecutionStatus = 'Running' AND TemporalWorkerDeploymentVersion = '${versionName(restarted.version!)}'`)).toBe(1);
      await eventually(async () => (readdirSync(dir).length === 1 ? true : undefined), 20_000, 500);
      expect(readdirSync(dir)).toEqual([`${restarted.version!.buildId}.js`]);
    } finally {
      await older.stop();
      await restarted.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
}
