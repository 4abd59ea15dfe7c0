import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index';
import { runStack, stackEnv } from '../support/npm-start';

/* The carrier simulator npm start runs listens where SIMULATOR_PORT says, so a person can point a tool at it. */

test('npm start runs the simulator on SIMULATOR_PORT and records it in the stack lock', async () => {
  const { dataDir, env } = await stackEnv('crm-simulator-port');
  const { MESSAGE_PROVIDER: _log, ...defaults } = env;
  const stack = runStack(defaults);
  try {
    await stack.ready;
    const url = `http://127.0.0.1:${env.SIMULATOR_PORT}`;
    expect(stack.output()).toContain(`Provider     simulator (Twilio-shaped at ${url}, sending from +15005550006;`);
    const lock = JSON.parse(await readFile(join(dataDir, 'stack.lock'), 'utf8'));
    expect(lock.simulator.url).toBe(url);
    // It answers as Twilio does: an unsigned call to its API is a 401.
    expect((await fetch(`${url}/2010-04-01/Accounts/${lock.simulator.accountSid}/Messages.json`)).status).toBe(401);
  } finally {
    expect(await stack.stop()).toBe(0);
  }
}, 240_000);

test('SIMULATOR_PORT defaults to 9466 and must be a port', () => {
  expect(loadConfig({}).SIMULATOR_PORT).toBe(9466);
  expect(loadConfig({ SIMULATOR_PORT: '0' }).SIMULATOR_PORT).toBe(0);
  expect(() => loadConfig({ SIMULATOR_PORT: '70000' })).toThrow('Invalid configuration: SIMULATOR_PORT:');
  expect(() => loadConfig({ SIMULATOR_PORT: 'twilio' })).toThrow('Invalid configuration: SIMULATOR_PORT:');
});
