import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import jwt from 'jsonwebtoken';
import { generateNamedKey } from '../../src/config/key-list';
import { entryPointArgs, entryPointEnv, PROJECT_ROOT } from '../support/process';

const run = promisify(execFile);

/** An entry point as its npm script runs it: api and worker from the build, token through tsx. */
async function tsx(script: string, args: string[], env: Record<string, string | undefined>) {
  const command = script === 'src/main/token.ts' ? ['--import', 'tsx', script] : entryPointArgs(script);
  try {
    const { stdout, stderr } = await run(process.execPath, [...command, ...args], {
      cwd: PROJECT_ROOT,
      env: entryPointEnv(env),
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const production = { DATABASE_URL: 'postgresql://unused@127.0.0.1:1/none', TEMPORAL_ADDRESS: '127.0.0.1:1' };

test('npm run api refuses to start without a JWT key: there is no default secret', async () => {
  const result = await tsx('src/main/api.ts', [], production);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('set JWT_SECRET (HS256) or JWT_PUBLIC_KEY (RS256/ES256); there is no default secret');
});

test('npm run api refuses a JWT_SECRET shorter than 32 characters', async () => {
  const result = await tsx('src/main/api.ts', [], { ...production, JWT_SECRET: 'short' });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('JWT_SECRET must be at least 32 characters');
});

test('in production, npm run api and npm run worker refuse to start without SECRETS_KEY: there is no default key', async () => {
  const env = { ...production, NODE_ENV: 'production', JWT_SECRET: 'p'.repeat(32), JWT_BUSINESS_CLAIM: 'org', TEMPORAL_PAYLOAD_KEYS: generateNamedKey('k1') };
  for (const script of ['src/main/api.ts', 'src/main/worker.ts']) {
    const result = await tsx(script, [], env);
    expect({ script, code: result.code }).toEqual({ script, code: 1 });
    expect(result.stderr).toContain('Invalid configuration: set SECRETS_KEY in production');
  }
});

test('in production, npm run api refuses to start without JWT_BUSINESS_CLAIM and names the setting', async () => {
  const result = await tsx('src/main/api.ts', [], { ...production, NODE_ENV: 'production', JWT_SECRET: 'p'.repeat(32) });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('Invalid configuration: in production set JWT_BUSINESS_CLAIM to the claim naming the businesses a token acts for');
});

test('npm run worker refuses to start without DATABASE_URL and TEMPORAL_ADDRESS', async () => {
  const result = await tsx('src/main/worker.ts', [], {});
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('npm run worker needs DATABASE_URL and TEMPORAL_ADDRESS');
});

test('npm run token prints a token for the user, signed with JWT_SECRET and expiring', async () => {
  const secret = 'a-development-secret-of-at-least-32-chars';
  const result = await tsx('src/main/token.ts', ['user-42'], { JWT_SECRET: secret });
  expect(result.code).toBe(0);
  const payload = jwt.verify(result.stdout.trim(), secret, { algorithms: ['HS256'] }) as jwt.JwtPayload;
  expect(payload.sub).toBe('user-42');
  expect(payload.exp! * 1000).toBeGreaterThan(Date.now());
});

test('npm run token binds the token to the businesses named by --business when JWT_BUSINESS_CLAIM is set', async () => {
  const secret = 'a-development-secret-of-at-least-32-chars';
  const env = { JWT_SECRET: secret, JWT_BUSINESS_CLAIM: 'org' };
  const claimOf = (stdout: string) => (jwt.verify(stdout.trim(), secret, { algorithms: ['HS256'] }) as jwt.JwtPayload).org;
  expect(claimOf((await tsx('src/main/token.ts', ['user-42', '--business', 'acme'], env)).stdout)).toBe('acme');
  expect(claimOf((await tsx('src/main/token.ts', ['user-42', '1h', '--business=acme', '--business', 'globex'], env)).stdout)).toEqual(['acme', 'globex']);
  const unbound = await tsx('src/main/token.ts', ['user-42'], env);
  expect(unbound.code).toBe(2);
  expect(unbound.stderr).toContain('JWT_BUSINESS_CLAIM is set (org): name the business the token acts for with --business <name>.');
});
