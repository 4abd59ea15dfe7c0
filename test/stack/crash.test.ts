import { readFile } from 'node:fs/promises';
import jwt from 'jsonwebtoken';
import { isAlive, leftoverServers, type StackLockInfo } from '../../src/stack/stack-lock';
import { dataPaths } from '../../src/paths';
import { READY, runNpmStart, runStack, STACK_SERVERS, stackEnv, type StackEnv } from '../support/npm-start';
import { testPort } from '../support/ports';
import { request, runEntryPoint, type RunningProcess, type RunOptions } from '../support/process';
import { processTree, stillRunning } from '../support/process-tree';
import { eventually } from '../support/stack';

/*
 * `npm start` as a crashing supervisor and an impatient user treat it; a machine that loses power, in
 * power-loss.test.ts. The tests run in order on one data directory, each starting from the stack the one
 * before left running, so that every start proves something.
 */

const lockHolder = async (dataDir: string) => JSON.parse(await readFile(dataPaths(dataDir).stackLock, 'utf8')) as StackLockInfo;

/** Every process here lives until the file ends: a test's own cleanup would stop what runs on the shared data directory. */
async function start(env: Record<string, string>, options: RunOptions = {}): Promise<RunningProcess> {
  const run = runStack(env, { ...options, untilFileEnd: true });
  await run.ready;
  return run;
}

async function tokenFor(dataDir: string, user: string) {
  const secret = (await readFile(dataPaths(dataDir).devJwtSecret, 'utf8')).trim();
  return jwt.sign({}, secret, { algorithm: 'HS256', subject: user, expiresIn: '1h' });
}

let stackEnvOf: StackEnv;
/** The stack the previous test left running, for the next to stop its own way. */
let running: RunningProcess | undefined;

beforeAll(async () => {
  stackEnvOf = await stackEnv('crm-crash');
});
afterAll(async () => {
  await running?.stop();
});

test('npm start stops what a killed run left running, refuses a second start on the same data, and stops itself when its supervisor dies', async () => {
  const { dataDir, env, api } = stackEnvOf;
  const first = await start(env);
  const firstStack = (await lockHolder(dataDir)).pid;
  const firstServers = await leftoverServers(dataPaths(dataDir));
  // Only the node processes die: PostgreSQL and the Temporal dev server keep running on the data directory.
  process.kill(first.child.pid!, 'SIGKILL');
  process.kill(firstStack, 'SIGKILL');
  await first.exited;
  expect(firstServers.every(({ pid }) => isAlive(pid))).toBe(true);

  const second = await start(env);
  expect(second.output()).toContain('Stopping what an earlier run left on');
  expect(firstServers.some(({ pid }) => isAlive(pid))).toBe(false);
  const token = await tokenFor(dataDir, 'crash-user');
  expect((await request(`${api}/clients`, token, 'POST', { _id: 'c2', phone: '+14155550101' })).status).toBe(201);

  const secondStack = (await lockHolder(dataDir)).pid;
  const intruder = runEntryPoint('src/main/start.ts', { ...env, PORT: String(await testPort()) }, READY, { untilFileEnd: true });
  expect(await intruder.exited).toBe(1);
  expect(intruder.output()).toContain(`is in use by npm start (pid ${secondStack}, API http://localhost:${env.PORT}`);
  expect(intruder.output()).toContain(`kill ${secondStack}`);
  expect((await request(`${api}/clients/c2`, token)).status).toBe(200);

  const secondServers = await leftoverServers(dataPaths(dataDir));
  process.kill(second.child.pid!, 'SIGKILL');
  await eventually(async () => !isAlive(secondStack) && secondServers.every(({ pid }) => !isAlive(pid)), 30_000);
  expect(second.output()).toContain('supervisor gone: shutting down');

  // In a process group of its own, as a terminal's foreground job: the next test presses Ctrl-C on it.
  running = await start(env, { detached: true });
  expect(running.output()).not.toContain('Stopping what an earlier run left');
}, 300_000);

test("Ctrl-C in a terminal stops the stack in order, quietly, and a start right after it succeeds", async () => {
  const { dataDir, env } = stackEnvOf;
  const first = running!;
  const servers = await leftoverServers(dataPaths(dataDir));
  // A terminal signals its whole foreground process group, and npm passes the signal on once more.
  process.kill(-first.child.pid!, 'SIGINT');
  process.kill(first.child.pid!, 'SIGINT');
  await eventually(async () => (await lockHolder(dataDir).catch(() => undefined))?.state !== 'running', 10_000, 20);
  // The real `npm start` this time: the next test kills npm itself.
  running = runNpmStart(env, { untilFileEnd: true });
  expect(await first.exited).toBe(0);
  expect(servers.some(({ pid }) => isAlive(pid))).toBe(false);
  const stopped = first.output().slice(first.output().indexOf(READY));
  expect(stopped).not.toMatch(/error|refused|unavailable/i);
  // The stack names the signal it was given: Ctrl-C's, not the SIGTERM a supervisor sends.
  expect(stopped).toContain('SIGINT: shutting down');
  expect(stopped).not.toContain('SIGTERM');
  await running.ready;
  expect(running.output()).not.toContain('Stopping what an earlier run left');
}, 300_000);

test('kill -9 of npm alone: the supervisor notices, the whole stack stops, and the next npm start succeeds', async () => {
  const { dataDir, env, api } = stackEnvOf;
  const npm = running!;
  running = undefined;
  // npm, its script (which execs the supervisor), the stack, PostgreSQL and the Temporal dev server.
  const tree = processTree(npm.child.pid!);
  const holder = await lockHolder(dataDir);
  expect(tree.map((p) => p.pid)).toContain(holder.pid);
  expect(holder.temporal).toEqual({ address: `127.0.0.1:${env.TEMPORAL_PORT}`, namespace: 'default', nexusEndpoint: 'crm' });
  const servers = await leftoverServers(dataPaths(dataDir));
  expect(servers.map((s) => s.name).sort()).toEqual(STACK_SERVERS);
  expect(servers.every((server) => tree.some((p) => p.pid === server.pid))).toBe(true);
  expect(npm.output()).toContain(`Example      npm run example:deal-won -- <business> <user> <client> <agent>   (finds Temporal 127.0.0.1:${env.TEMPORAL_PORT} in ${dataPaths(dataDir).stackLock})`);

  process.kill(npm.child.pid!, 'SIGKILL');
  await npm.exited;
  await eventually(async () => !tree.some(stillRunning), 10_000, 100);
  expect(npm.output()).toContain('is gone; stopping the stack');

  const next = await start(env);
  expect(next.output()).not.toContain('Stopping what an earlier run left');
  // The data of the starts before is still there.
  const token = await tokenFor(dataDir, 'crash-user');
  expect((await request(`${api}/clients/c2`, token)).status).toBe(200);
  expect((await request(`${api}/clients`, token, 'POST', { _id: 'c3', phone: '+14155550102' })).status).toBe(201);
  expect(await next.stop()).toBe(0);
}, 400_000);
