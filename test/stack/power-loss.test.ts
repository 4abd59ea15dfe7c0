import { readFile } from 'node:fs/promises';
import { dataPaths } from '../../src/paths';
import { leftoverServers, type StackLockInfo } from '../../src/stack/stack-lock';
import { runStack, STACK_SERVERS, stackEnv } from '../support/npm-start';
import { npmStartTools } from '../support/shared-npm-start';
import type { RunningProcess } from '../support/process';
import { inbox } from './power-loss/inbox';
import type { PowerLossStack } from './power-loss/journey';
import { pendingMessage } from './power-loss/pending-message';
import { routing } from './power-loss/routing';

/*
 * kill -9 of every process of npm start (the supervisor, the process that runs the API and the worker,
 * PostgreSQL and Temporal: a machine that lost power), as three features meet it on one stack with its
 * simulator: a delayed message, the routing queue with a first-response clock, the inbox with a snooze.
 * Each keeps a business of its own; they are set up side by side, each starts its clock right before the
 * kill, and each is checked once npm start is back on the same data. The power loss is paid once for all
 * three (docs/design.md, "Whole-stack files share one start").
 */

const journeys = [pendingMessage(), routing(), inbox()];
let stack: RunningProcess;
let env: Record<string, string>;
let shared: PowerLossStack;

beforeAll(async () => {
  const settings = await stackEnv('crm-power-loss');
  const { MESSAGE_PROVIDER: _log, ...simulator } = settings.env;
  env = simulator;
  stack = runStack(env);
  await stack.ready;
  shared = await npmStartTools(settings.dataDir, env);
}, 240_000);

// Each phase a block of its own: jest starts a block's concurrent tests together.
describe('before the power loss', () => {
  for (const journey of journeys) test.concurrent(journey.before, () => journey.setUp(shared), 120_000);
});

describe('the power loss', () => {
  test('kill -9 of every npm start process while the clocks run, then npm start on the same data', async () => {
    await Promise.all(journeys.map((journey) => journey.arm()));
    const lock = JSON.parse(await readFile(dataPaths(shared.dataDir).stackLock, 'utf8')) as StackLockInfo;
    const servers = await leftoverServers(dataPaths(shared.dataDir));
    expect(servers.map((s) => s.name).sort()).toEqual(STACK_SERVERS);
    for (const pid of [stack.child.pid!, lock.pid, ...servers.map((s) => s.pid)]) process.kill(pid, 'SIGKILL');
    await stack.exited;
    stack = runStack(env, { untilFileEnd: true });
    await stack.ready;
  }, 240_000);
});

describe('after it', () => {
  for (const journey of journeys) test.concurrent(journey.after, () => journey.check(), 120_000);
});

describe('the end', () => {
  test('npm start stops on SIGTERM with exit code 0 and leaves nothing running', async () => {
    expect(await stack.stop()).toBe(0);
    expect(await leftoverServers(dataPaths(shared.dataDir))).toEqual([]);
  }, 120_000);
});
