import { spawn, type ChildProcess } from 'node:child_process';
import { PROJECT_ROOT } from '../../src/paths';
import { eventually } from './helpers';
import { request as httpRequest } from './http';

export { PROJECT_ROOT };

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves once `readyText` was printed; rejects if the process exits first. */
  ready: Promise<void>;
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** This process's environment without the settings an entry point reads, plus `env`. */
export function entryPointEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
  for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'JWT_SECRET', 'JWT_PUBLIC_KEY', 'NODE_ENV', 'PORT', 'DATA_DIR']) delete clean[name];
  return { ...clean, ...env };
}

/**
 * Runs one of the project's entry points the way its npm script does, with a controlled environment,
 * as one node process (tsx as a loader), so a signal to `child` reaches the entry point itself.
 * `detached` gives it a process group of its own, like a terminal's foreground job.
 */
export function runEntryPoint(script: string, env: Record<string, string>, readyText: string, options: { detached?: boolean } = {}): RunningProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: PROJECT_ROOT,
    env: entryPointEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const printed = eventually(async () => output.includes(readyText), 120_000, 250).then(() => undefined);
  const ready = Promise.race([
    printed,
    exited.then((code) => Promise.reject(new Error(`${script} exited with ${code} before it was ready:\n${output}`))),
  ]);
  ready.catch(() => undefined);
  return {
    child,
    output: () => output,
    ready,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** A JSON request with a bearer token; the body is parsed when there is one. */
export const request = (url: string, token: string, method = 'GET', body?: unknown) => httpRequest(method, url, { token, body });
