import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/paths';
import { sleep } from './stack';

/**
 * The deployment's processes as `npm run build` writes them (the Dockerfile and `npm run api`/`worker` run
 * the same files); test/project/bench-entries.test.ts checks that each exists after the build.
 */
export const DIST_ENTRIES = { api: 'main/api.js', worker: 'main/worker.js' } as const;
export type DistEntry = keyof typeof DIST_ENTRIES;
export const distEntryPath = (entry: DistEntry) => join(PROJECT_ROOT, 'dist', DIST_ENTRIES[entry]);

/** One `node dist/main/<entry>.js` process of a deployment, which can be killed and started again with the same settings. */
export interface DeployedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Starts it (again): the same entry and environment. */
  start(): ChildProcess;
  /** kill -9: no shutdown hook runs, as when a machine or container dies. */
  kill9(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export function deployedProcess(name: string, entry: DistEntry, env: Record<string, string>, log: (line: string) => void): DeployedProcess {
  let child: ChildProcess | undefined;
  const exited = (c: ChildProcess) => (c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => c.once('exit', () => resolve())));
  const handle: DeployedProcess = {
    name,
    get child() {
      if (!child) throw new Error(`${name} was never started`);
      return child;
    },
    start() {
      // BENCH_CPU_PROF_DIR: each process writes a V8 CPU profile there when it exits (open it in Chrome's DevTools).
      const profile = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : [];
      const started = spawn(process.execPath, [...profile, distEntryPath(entry)], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
      started.once('exit', (code, signal) => {
        if (code !== 0 && signal !== 'SIGTERM' && signal !== 'SIGKILL') log(`${name} exited: ${code ?? signal}`);
      });
      child = started;
      return started;
    },
    async kill9() {
      const c = handle.child;
      c.kill('SIGKILL');
      await exited(c);
    },
    async stop(graceMs = 20_000) {
      if (!child) return;
      const c = child;
      if (c.exitCode !== null || c.signalCode !== null) return;
      c.kill('SIGTERM');
      await Promise.race([exited(c), sleep(graceMs).then(() => c.kill('SIGKILL'))]);
      await exited(c);
    },
  };
  return handle;
}

/** Waits until `url` answers 2xx, failing if `process` exits first. */
export async function waitReady(url: string, proc: DeployedProcess, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited before it was ready`);
    if (Date.now() > deadline) throw new Error(`${proc.name}: ${url} not ready within ${timeoutMs} ms`);
    await sleep(200);
  }
}
