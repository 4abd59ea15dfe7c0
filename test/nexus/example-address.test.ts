import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crmTarget } from '../../examples/deal-won/target';
import { loadConfig } from '../../src/config/index';
import { freePort } from '../../src/net/free-port';
import { dataPaths } from '../../src/paths';
import { entryPointEnv, PROJECT_ROOT } from '../support/process';
import { testDirSync } from '../support/temp-dir';

/*
 * `npm run example:deal-won` beside `npm start`: it reads the running stack's Temporal address and
 * Nexus endpoint from the stack lock of the data directory, the environment overrides them, and a
 * failure to connect names the address it tried and where that came from.
 */
let holder: ChildProcess;
let dataDir: string;
let recordedPort: number;

beforeAll(async () => {
  dataDir = testDirSync('deal-won-');
  recordedPort = await freePort();
  // A live process running a stack entry holds the lock, as `npm start`'s stack does.
  holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)', join(dataDir, 'stack.js')], { stdio: 'ignore' });
  writeFileSync(
    dataPaths(dataDir).stackLock,
    JSON.stringify({
      pid: holder.pid,
      state: 'running',
      startedAt: new Date().toISOString(),
      api: 'http://localhost:1',
      temporal: { address: `127.0.0.1:${recordedPort}`, namespace: 'default', nexusEndpoint: 'crm-dev' },
    }),
  );
});
afterAll(() => holder.kill('SIGKILL'));

test('without TEMPORAL_ADDRESS the example takes the address and Nexus endpoint npm start recorded', async () => {
  expect(await crmTarget(loadConfig({ DATA_DIR: dataDir }), {})).toEqual({
    address: `127.0.0.1:${recordedPort}`,
    nexusEndpoint: 'crm-dev',
    source: `the npm start running on ${dataPaths(dataDir).stackLock} (pid ${holder.pid})`,
  });
});

test('TEMPORAL_ADDRESS and NEXUS_ENDPOINT override what the stack recorded', async () => {
  const env = { DATA_DIR: dataDir, TEMPORAL_ADDRESS: '10.0.0.1:7233', NEXUS_ENDPOINT: 'other' };
  expect(await crmTarget(loadConfig(env), env)).toEqual({ address: '10.0.0.1:7233', nexusEndpoint: 'other', source: 'TEMPORAL_ADDRESS' });
});

test('a lock whose process is gone is not a running stack: the default address, and the message says why', async () => {
  const stale = testDirSync('deal-won-stale-');
  writeFileSync(dataPaths(stale).stackLock, JSON.stringify({ pid: 2 ** 22 + 1, state: 'running', startedAt: '', temporal: { address: '127.0.0.1:1', namespace: 'default', nexusEndpoint: 'x' } }));
  const target = await crmTarget(loadConfig({ DATA_DIR: stale }), {});
  expect(target).toMatchObject({ address: '127.0.0.1:7233', nexusEndpoint: 'crm' });
  expect(target.source).toContain(`no npm start is running on ${dataPaths(stale).stackLock}`);
});

test('when it cannot connect, the example names the address it tried and where it found it', async () => {
  const result = await promisify(execFile)(join(PROJECT_ROOT, 'node_modules/.bin/tsx'), ['examples/deal-won/run.ts', 'acme', 'u1', 'c1', 'a1'], {
    cwd: PROJECT_ROOT,
    env: entryPointEnv({ DATA_DIR: dataDir }),
    timeout: 60_000,
  }).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => error,
  );
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`Cannot reach Temporal at 127.0.0.1:${recordedPort} (the npm start running on ${dataPaths(dataDir).stackLock} (pid ${holder.pid}))`);
  expect(result.stderr).toContain('Start the stack with `npm start` (on the same DATA_DIR), or set TEMPORAL_ADDRESS');
}, 90_000);
