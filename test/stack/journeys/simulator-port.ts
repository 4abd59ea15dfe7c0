import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SharedNpmStart } from '../../support/shared-npm-start';

/* The carrier simulator npm start runs listens where SIMULATOR_PORT says, so a person can point a tool at it. */

export function simulatorPort(shared: () => SharedNpmStart): void {
  test.concurrent('npm start runs the simulator on SIMULATOR_PORT and records it in the stack lock', async () => {
    const { stack, dataDir, env } = shared();
    const url = `http://127.0.0.1:${env.SIMULATOR_PORT}`;
    expect(stack.output()).toContain(`Provider     simulator (Twilio-shaped at ${url}, sending from +15005550006;`);
    const lock = JSON.parse(await readFile(join(dataDir, 'stack.lock'), 'utf8'));
    expect(lock.simulator.url).toBe(url);
    // It answers as Twilio does: an unsigned call to its API is a 401.
    expect((await fetch(`${url}/2010-04-01/Accounts/${lock.simulator.accountSid}/Messages.json`)).status).toBe(401);
  }, 240_000);
}
