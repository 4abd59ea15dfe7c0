import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import jwt from 'jsonwebtoken';
import { runStack, stackEnv } from './npm-start';
import { entryPointEnv, PROJECT_ROOT, type RunningProcess } from './process';

/*
 * One `npm start` for the journeys of a file: the walkthrough's stack (the simulator, npm start's default
 * carrier) with the CRM fakes, started before the file's first test and stopped after its last. Each
 * journey keeps to a business, users and phones of its own, so none sees another's clients, replies or
 * opt-outs (the shared sender's opt-outs are per phone, for every business).
 */

export interface SharedNpmStart {
  stack: RunningProcess;
  dataDir: string;
  env: Record<string, string>;
  /** `http://127.0.0.1:<PORT>`. */
  origin: string;
  /** A token of `user`, signed with the stack's development secret. */
  tokenOf(user: string): string;
  /** `<script> ...args` through tsx on the stack's data directory, as its npm script runs it (without npx's second or two): its stdout. */
  run(script: string, args: string[]): Promise<string>;
}

/**
 * Starts the stack before the file's tests. The file's last test stops it and expects exit code 0 (an
 * afterAll of the file would come after test/support/each-file.ts's, which stops whatever is left).
 */
export type NpmStartTools = Pick<SharedNpmStart, 'dataDir' | 'origin' | 'tokenOf' | 'run'>;

/** How a test reaches the npm start running on `dataDir` with `env`: its API, its tokens, its npm scripts. */
export async function npmStartTools(dataDir: string, env: Record<string, string>): Promise<NpmStartTools> {
  const secret = (await readFile(join(dataDir, 'dev-jwt-secret'), 'utf8')).trim();
  return {
    dataDir,
    origin: `http://127.0.0.1:${env.PORT}`,
    tokenOf: (user) => jwt.sign({}, secret, { algorithm: 'HS256', subject: user, expiresIn: '1h' }),
    run: async (script, args) => (await promisify(execFile)(process.execPath, ['--import', 'tsx', script, ...args], { cwd: PROJECT_ROOT, env: entryPointEnv({ DATA_DIR: dataDir }) })).stdout,
  };
}

export function sharedNpmStart(prefix: string): () => SharedNpmStart {
  let shared: SharedNpmStart | undefined;
  beforeAll(async () => {
    const { dataDir, env: settings } = await stackEnv(prefix);
    const { MESSAGE_PROVIDER: _log, ...env } = settings;
    const stack = runStack({ ...env, CRM_FAKES: '1' });
    await stack.ready;
    shared = { stack, env, ...(await npmStartTools(dataDir, env)) };
  }, 240_000);
  return () => {
    if (!shared) throw new Error('the shared npm start did not start (see beforeAll)');
    return shared;
  };
}
