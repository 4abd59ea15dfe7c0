import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { stopLeftovers, type StackLockInfo } from '../../src/stack/stack-lock';
import { dataPaths, PROJECT_ROOT } from '../../src/paths';
import { eventually, uniqueName } from './helpers';
import { request as httpRequest } from './http';
import { listenersOf } from './ports';
import { processId, processTree, stopProcesses, type ProcessId } from './process-tree';

export { PROJECT_ROOT };

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves once `readyText` was printed and the ports are answered by this process; rejects if it exits first. */
  ready: Promise<void>;
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export interface RunOptions {
  /** A process group of its own, like a terminal's foreground job. */
  detached?: boolean;
  /** Ports the process (or one below it) must be the one listening on once it is ready. */
  ports?: number[];
  /** Stopped after the file rather than after the test that started it: a stack the file's later tests share. */
  untilFileEnd?: boolean;
}

/** This process's environment without the settings an entry point reads, plus `env`. */
export function entryPointEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
  for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'JWT_SECRET', 'JWT_PUBLIC_KEY', 'NODE_ENV', 'PORT', 'DATA_DIR', 'TEMPORAL_DEBUG']) delete clean[name];
  return { ...clean, ...env };
}

/*
 * Every process a test starts, with what it started below it and the data directory it runs on, is
 * stopped after the test whatever its outcome: a failed assertion or a timeout leaves nothing running
 * once jest has gone (the hooks of test/support/each-file.ts, set for every file).
 */
const started: { tree: Map<string, ProcessId>; root: ProcessId | undefined; dataDir?: string; inTest: boolean }[] = [];

/** How each-file.ts reaches the stop without loading this module (and what it imports) into files that start no process. */
(globalThis as Record<symbol, unknown>)[Symbol.for('crm-test-stop-started')] = (all: boolean) => stopEverythingStarted(all);

const key = (id: ProcessId) => `${id.pid}/${id.startedAt}`;

function remember(entry: (typeof started)[number]) {
  if (!entry.root) return;
  for (const id of processTree(entry.root.pid)) if (id.startedAt) entry.tree.set(key(id), id);
}

/** Stops everything the processes started by this test (or, `all`, by this file) left running. */
export async function stopEverythingStarted(all = false): Promise<void> {
  const entries = started.filter((entry) => all || entry.inTest);
  for (const entry of entries) started.splice(started.indexOf(entry), 1);
  const leftovers: ProcessId[] = [];
  for (const entry of entries) {
    remember(entry);
    leftovers.push(...entry.tree.values());
    if (entry.dataDir) {
      const info = await readFile(dataPaths(entry.dataDir).stackLock, 'utf8').then((text) => JSON.parse(text) as StackLockInfo, () => undefined);
      const holder = info && processId(info.pid);
      if (holder && /stack\.(js|ts)/.test(holder.args)) leftovers.push(holder);
    }
  }
  await stopProcesses(leftovers);
  for (const entry of entries) if (entry.dataDir) await stopLeftovers(dataPaths(entry.dataDir), () => undefined);
}

/** With TEST_STACK_TIMES=<file>, one line per process ready or stopped: how long its start or its stop took (docs/design.md, "Whole-stack files share one start"). */
function recordTime(what: string, event: 'ready' | 'stopped', since: number): void {
  const file = process.env.TEST_STACK_TIMES;
  if (file) appendFileSync(file, `${new Date().toISOString()} ${expect.getState().testPath} ${what}: ${event} after ${Date.now() - since} ms\n`);
}

/** Fails unless each port is listened on by `pid` or a process below it. */
function verifyListeners(pid: number, ports: number[], what: string): void {
  const ours = new Set(processTree(pid).map((id) => id.pid));
  for (const port of ports) {
    const listeners = listenersOf(port);
    if (!listeners.some((listener) => ours.has(listener))) {
      const others = listeners.map((listener) => `pid ${listener} (${processId(listener)?.args ?? '?'})`).join(', ');
      throw new Error(`${what} is ready, but port ${port} is ${others ? `answered by ${others}, not by it` : 'not listened on'}`);
    }
  }
}

/**
 * Runs `command` with `args` and a controlled environment, records it (and what it starts) for the
 * cleanup after the test, and waits for `readyText` and for its ports to be its own.
 */
export function runProcess(command: string, args: string[], env: Record<string, string>, readyText: string, options: RunOptions = {}): RunningProcess {
  const child = spawn(command, args, {
    cwd: PROJECT_ROOT,
    env: entryPointEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  const inTest = !options.untilFileEnd && Boolean(expect.getState().currentTestName);
  const entry = { tree: new Map<string, ProcessId>(), root: child.pid ? processId(child.pid) : undefined, dataDir: env.DATA_DIR, inTest };
  started.push(entry);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const what = `${command} ${args.join(' ')}`;
  const spawnedAt = Date.now();
  const printed = eventually(async () => output.includes(readyText), 180_000, 250).then(() => {
    recordTime(what, 'ready', spawnedAt);
    remember(entry);
    verifyListeners(child.pid!, options.ports ?? [], what);
  });
  const ready = Promise.race([printed, exited.then((code) => Promise.reject(new Error(`${what} exited with ${code} before it was ready:\n${output}`)))]);
  ready.catch(() => undefined);
  return {
    child,
    output: () => output,
    ready,
    exited,
    stop: async () => {
      const stoppedAt = Date.now();
      exited.then(() => recordTime(what, 'stopped', stoppedAt));
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/**
 * Node's arguments for an entry point of src/: its build in dist/, as npm start and `npm run api` run it,
 * when the global setup built it; otherwise the source through tsx.
 */
export const entryPointArgs = (script: string): string[] =>
  process.env.TEST_DIST && /^src\/.*\.ts$/.test(script) ? [script.replace(/^src\/(.*)\.ts$/, 'dist/$1.js')] : ['--import', 'tsx', script];

/**
 * Runs one of the project's entry points the way its npm script does, as one node process, so a signal
 * to `child` reaches the entry point itself.
 */
export function runEntryPoint(script: string, env: Record<string, string>, readyText: string, options: RunOptions = {}): RunningProcess {
  // The workflows the global setup bundled once, rather than webpack again in every worker this starts.
  const bundle: Record<string, string> = process.env.TEST_WORKFLOW_BUNDLE ? { WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE } : {};
  return runProcess(process.execPath, entryPointArgs(script), { ...bundle, ...ownReconciler(env), ...env }, readyText, options);
}

/**
 * A worker on the run's shared database reconciles only the businesses its test names (RECONCILE_BUSINESSES);
 * unnamed, a business of its own that holds nothing, so that it never adopts another file's rows.
 */
function ownReconciler(env: Record<string, string>): Record<string, string> {
  return env.DATABASE_URL === process.env.TEST_DATABASE_URL ? { RECONCILE_BUSINESSES: uniqueName('reconciles-nothing') } : {};
}

/** A JSON request with a bearer token; the body is parsed when there is one. */
export const request = (url: string, token: string, method = 'GET', body?: unknown) => httpRequest(method, url, { token, body });
