import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTE_KEYS } from '../starters/search-attributes';
import { findTemporalCli, type ToolsConfig } from './temporal-cli';

export interface DevServerOptions {
  /** File that keeps the server's state across restarts; in memory when absent. */
  dbFilename?: string;
  /** SQLite pragmas for the file; WAL_PRAGMAS unless given. */
  sqlitePragmas?: string[];
  port?: number;
  uiPort?: number;
  /** The remote codec the UI calls to show encrypted payloads (it may carry a secret: never on the command line). */
  uiCodecEndpoint?: string;
  /** More namespaces to create at launch, beside `default` (the tests' Nexus callers live in one). */
  namespaces?: string[];
  /** The least severe of the server's own lines printed on this process's output; `warn` unless given. */
  serverLogLevel?: 'debug' | 'info' | 'warn' | 'error';
}

export interface RunningDevServer {
  address: string;
  namespace: string;
  uiUrl?: string;
  stop(): Promise<void>;
}

/**
 * Write-ahead logging with `synchronous=normal`: about twice the dev server's write throughput (see
 * `npm run bench:dev-server`). A crash of the server process loses nothing; a crash of the machine
 * may lose the last transactions, an accepted trade for the development server (production runs a
 * Temporal cluster on its own database).
 */
export const WAL_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'];

/**
 * The dev server's SQLite file holds every workflow's history: readable by its owner only. The server
 * creates it (a file made in advance it would take for a database already set up), so it is started
 * under a umask that leaves others nothing, and files an earlier version left open are tightened.
 */
async function tightenSqliteFiles(dbFilename: string): Promise<void> {
  for (const suffix of ['', '-wal', '-shm']) {
    await chmod(dbFilename + suffix, 0o600).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}

async function withPrivateUmask<T>(start: () => Promise<T>): Promise<T> {
  // The umask is the process's: set only while the server is spawned, and not at all off the main thread.
  if (!isMainThread) return start();
  const previous = process.umask(0o077);
  try {
    return await start();
  } finally {
    process.umask(previous);
  }
}

/**
 * The CLI behind a shell script that sets umask 077 first: the server creates its SQLite files private
 * while this process's umask stays as it is (PostgreSQL starting beside it writes a file its own user
 * must read). Kept beside the SQLite file, rewritten on each start.
 */
async function privateUmaskLauncher(cli: string, dbFilename: string): Promise<string> {
  const launcher = join(dirname(dbFilename), 'temporal-dev-server.sh');
  await writeFile(launcher, `#!/bin/sh\numask 077\nexec '${cli.replace(/'/g, `'\\''`)}' "$@"\n`, { mode: 0o700 });
  await chmod(launcher, 0o700);
  return launcher;
}

/** The CLI's environment (`--env`) that gives `server start-dev` its `--ui-codec-endpoint`. */
const CODEC_ENV = 'crm-ui-codec';

/**
 * The UI's codec endpoint carries the codec secret as its last path segment, and a command line is
 * anyone's to read (ps, /proc/<pid>/cmdline): the CLI reads it from an environment file of its own
 * (`--env-file`, the flag's name as the key), private to this user and removed once the server is up.
 */
async function codecSettingsFile(endpoint: string): Promise<{ file: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'crm-temporal-ui-'));
  const file = join(dir, 'env.yaml');
  await writeFile(file, JSON.stringify({ env: { [CODEC_ENV]: { 'ui-codec-endpoint': endpoint } } }), { mode: 0o600 });
  return { file, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Starts `temporal server start-dev` with this project's search attributes registered. */
export async function startDevServer(config: ToolsConfig, options: DevServerOptions = {}): Promise<RunningDevServer> {
  const found = await findTemporalCli(config);
  if (options.dbFilename) await tightenSqliteFiles(options.dbFilename);
  const cli = found && options.dbFilename ? await privateUmaskLauncher(found, options.dbFilename) : found;
  const codecSettings = options.uiCodecEndpoint && options.uiPort !== undefined ? await codecSettingsFile(options.uiCodecEndpoint) : undefined;
  const start = () => TestWorkflowEnvironment.createLocal({
    server: {
      executable: cli ? { type: 'existing-path', path: cli } : { type: 'cached-download' },
      ip: '127.0.0.1',
      port: options.port,
      dbFilename: options.dbFilename,
      ui: options.uiPort !== undefined,
      uiPort: options.uiPort,
      searchAttributes: SEARCH_ATTRIBUTE_KEYS,
      log: { format: 'pretty', level: options.serverLogLevel ?? 'warn' },
      extraArgs: [
        ...(options.dbFilename ? (options.sqlitePragmas ?? WAL_PRAGMAS).flatMap((pragma) => ['--sqlite-pragma', pragma]) : []),
        ...(options.namespaces ?? []).flatMap((namespace) => ['--namespace', namespace]),
        ...(codecSettings ? ['--env-file', codecSettings.file, '--env', CODEC_ENV] : []),
      ],
    },
  });
  // Without a CLI of our own the SDK's download runs, with no launcher: the umask is set around its start instead.
  const env = await (options.dbFilename && !found ? withPrivateUmask(start) : start()).finally(() => codecSettings?.remove());
  return {
    address: env.address,
    namespace: env.namespace ?? 'default',
    uiUrl: options.uiPort !== undefined ? `http://127.0.0.1:${options.uiPort}` : undefined,
    stop: () => env.teardown(),
  };
}
