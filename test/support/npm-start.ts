import { testPort } from './ports';
import { runEntryPoint, runProcess, type RunningProcess, type RunOptions } from './process';
import { testDir } from './temp-dir';

/* `npm start` as the tests run it: its own data directory and ports, checked to be its own once it is ready. */

export const READY = 'Ctrl-C stops everything';

const PORT_SETTINGS = ['PORT', 'API_METRICS_PORT', 'WORKER_HTTP_PORT', 'TEMPORAL_PORT', 'TEMPORAL_UI_PORT'] as const;

export interface StackEnv {
  dataDir: string;
  env: Record<string, string>;
  /** The API's base for business `acme`. */
  api: string;
}

/**
 * A fresh data directory and ports. The Temporal CLI is the one the global setup found, unless
 * `installTools`: then the stack installs its own into the data directory, as on a fresh clone.
 */
export async function stackEnv(prefix: string, options: { installTools?: boolean } = {}): Promise<StackEnv> {
  const dataDir = await testDir(`${prefix}-`);
  const ports: Record<string, string> = {};
  for (const name of [...PORT_SETTINGS, 'SIMULATOR_PORT']) ports[name] = String(await testPort());
  const cli: Record<string, string> = !options.installTools && process.env.TEST_TEMPORAL_CLI ? { TEMPORAL_CLI_PATH: process.env.TEST_TEMPORAL_CLI } : {};
  // The log provider, whose records these tests read; the simulator (npm start's default) has its own tests.
  return { dataDir, env: { DATA_DIR: dataDir, MESSAGE_PROVIDER: 'log', ...cli, ...ports }, api: `http://127.0.0.1:${ports.PORT}/ext/v2/acme` };
}

/** What npm start runs beside itself, as `leftoverServers` names them: PostgreSQL and Temporal (the server engine: its server and its UI, two processes). */
export const STACK_SERVERS = process.env.TEMPORAL_ENGINE === 'server' ? ['postgres', 'temporal', 'temporal'] : ['postgres', 'temporal'];

/** The ports of `env` the stack serves itself (Temporal's only when it runs its own). */
export function stackPorts(env: Record<string, string>): number[] {
  const own: string[] = env.TEMPORAL_ADDRESS ? ['PORT', 'API_METRICS_PORT', 'WORKER_HTTP_PORT'] : [...PORT_SETTINGS];
  // The simulator runs when MESSAGE_PROVIDER says so, or (npm start's default) says nothing.
  if (!env.MESSAGE_PROVIDER || env.MESSAGE_PROVIDER === 'simulator') own.push('SIMULATOR_PORT');
  return own.filter((name) => env[name]).map((name) => Number(env[name]));
}

/** `src/main/start.ts` as one node process (signals reach the supervisor itself). */
export function runStack(env: Record<string, string>, options: RunOptions = {}): RunningProcess {
  return runEntryPoint('src/main/start.ts', env, READY, { ports: stackPorts(env), ...options });
}

/** The real `npm start`: npm, its script, the supervisor, the stack. */
export function runNpmStart(env: Record<string, string>, options: RunOptions = {}): RunningProcess {
  return runProcess('npm', ['start', '--silent'], env, READY, { ports: stackPorts(env), ...options });
}
