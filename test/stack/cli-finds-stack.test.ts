import { execFile } from 'node:child_process';
import jwt from 'jsonwebtoken';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runStack, stackEnv } from '../support/npm-start';
import { entryPointEnv, PROJECT_ROOT, request } from '../support/process';
import { testDir } from '../support/temp-dir';

/* `npm run token` and `npm run sms` typed in another shell, with no DATA_DIR, reach the npm start that runs. */

/** A tool run as from a new shell: no DATA_DIR unless given (entryPointEnv drops this process's). */
async function tool(script: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, ...args], { cwd: PROJECT_ROOT, env: entryPointEnv(env) });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

test('token and sms find the running npm start from its lock without DATA_DIR; with two running, they name both and DATA_DIR picks one', async () => {
  // The record of running stacks is per user; this test keeps its own, so other suites' stacks do not count.
  const runtime = { XDG_RUNTIME_DIR: await testDir('crm-runtime-') };
  const a = await stackEnv('crm-cli-a');
  const { MESSAGE_PROVIDER: _log, ...simulatorEnv } = a.env;
  const first = runStack({ ...simulatorEnv, ...runtime });
  try {
    await first.ready.catch((error) => { console.log(first.output()); throw error; });
    const token = await tool('src/main/token.ts', ['user-1'], runtime);
    expect(token).toMatchObject({ code: 0, stdout: expect.stringMatching(/^ey[\w-]+\.[\w-]+\.[\w-]+\n$/) });
    const created = await request(`${a.api}/clients`, token.stdout.trim(), 'POST', { _id: 'c1', phone: '+14155550100' });
    expect(created.status).toBe(201);
    // The files the walkthroughs read are where this stack keeps them, whatever this shell's DATA_DIR.
    expect(await tool('src/main/stack-file.ts', ['dev-admin-token'], runtime)).toEqual({ code: 0, stdout: `${join(a.dataDir, 'dev-admin-token')}\n`, stderr: '' });
    expect(await tool('src/main/stack-file.ts', ['dev-crm-fakes.json'], runtime)).toMatchObject({ code: 2, stderr: expect.stringContaining(`${join(a.dataDir, 'dev-crm-fakes.json')} does not exist: npm start writes it with CRM_FAKES=1`) });
    expect(await tool('src/main/stack-file.ts', ['../etc/passwd'], runtime)).toMatchObject({ code: 2, stderr: expect.stringContaining('usage: npm run -s stack:file -- <name>, one of: postgres,') });
    // This stack binds no token to a business: --business is refused, not silently left out.
    const unbindable = await tool('src/main/token.ts', ['user-1', '--business', 'acme'], runtime);
    expect(unbindable).toMatchObject({ code: 2, stdout: '' });
    expect(unbindable.stderr).toContain(`--business acme: tokens are not bound to businesses here (JWT_BUSINESS_CLAIM is set neither in this shell nor in the npm start running on ${a.dataDir})`);
    const sms = await tool('scripts/sms.ts', ['+14155550100', 'Hello'], runtime);
    expect(sms.stderr).toBe('');
    expect(sms.stdout).toMatch(new RegExp(`^\\+14155550100 texted \\+15005550006: "Hello" \\(SM[0-9a-f]{32}\\); the stack answered 200 at http://127\\.0\\.0\\.1:${a.env.PORT}/providers/simulator/inbound`));

    const b = await stackEnv('crm-cli-b');
    const second = runStack({ ...b.env, ...runtime, JWT_BUSINESS_CLAIM: 'org' });
    try {
      await second.ready;
      const ambiguous = await tool('src/main/token.ts', ['user-1'], runtime);
      expect(ambiguous.code).toBe(2);
      expect(ambiguous.stdout).toBe('');
      expect(ambiguous.stderr).toContain('2 npm start stacks are running, none on the default data directory');
      expect(ambiguous.stderr).toContain(`DATA_DIR=${a.dataDir}   (pid `);
      expect(ambiguous.stderr).toContain(`DATA_DIR=${b.dataDir}   (pid `);
      expect(ambiguous.stderr).toContain('Set DATA_DIR to the one you mean.');
      // The second stack binds tokens by the claim org: the token takes it from there, with no JWT_BUSINESS_CLAIM in this shell.
      const unnamed = await tool('src/main/token.ts', ['user-2'], { ...runtime, DATA_DIR: b.dataDir });
      expect(unnamed).toMatchObject({ code: 2, stdout: '' });
      expect(unnamed.stderr).toContain(`JWT_BUSINESS_CLAIM is set (org, by the npm start running on ${b.dataDir}): name the business the token acts for with --business <name>.`);
      const forB = await tool('src/main/token.ts', ['user-2', '--business', 'acme'], { ...runtime, DATA_DIR: b.dataDir });
      expect(jwt.decode(forB.stdout.trim())).toMatchObject({ sub: 'user-2', org: 'acme' });
      expect((await request(`${b.api}/clients`, forB.stdout.trim(), 'POST', { _id: 'c2' })).status).toBe(201);
      expect((await request(`${a.api}/clients`, forB.stdout.trim(), 'POST', { _id: 'c2' })).status).toBe(401);
    } finally {
      expect(await second.stop()).toBe(0);
    }
    // Once the other has stopped, the one left is found again.
    const again = await tool('src/main/token.ts', ['user-1'], runtime);
    expect((await request(`${a.api}/clients/c1`, again.stdout.trim())).status).toBe(200);
  } finally {
    expect(await first.stop()).toBe(0);
  }
  const none = await tool('scripts/sms.ts', ['+14155550100', 'Hello'], runtime);
  expect(none).toMatchObject({ code: 1, stderr: 'No npm start is running; start it (MESSAGE_PROVIDER=simulator, the default) first\n' });
}, 600_000);
