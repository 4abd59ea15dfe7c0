import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  /** The remote codec the UI calls to show encrypted payloads. */
  uiCodecEndpoint?: string;
  /** More namespaces to create at launch, beside `default` (the tests' Nexus callers live in one). */
  namespaces?: string[];
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
 * The CLI behind a launcher that sets the private umask for the server alone. The process's own umask,
 * changed while the server starts, would reach whatever else this process writes meanwhile: embedded
 * PostgreSQL's first start, side by side, writes initdb's password file, which its `postgres` user
 * (when started as root) could then not read.
 */
async function privateLauncher(cli: string): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'temporal-launch-'));
  const path = join(dir, 'temporal');
  await writeFile(path, `#!/bin/sh\numask 077\nexec '${cli.replace(/'/g, `'\\''`)}' "$@"\n`, { mode: 0o700 });
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Starts `temporal server start-dev` with this project's search attributes registered. */
export async function startDevServer(config: ToolsConfig, options: DevServerOptions = {}): Promise<RunningDevServer> {
  const cli = await findTemporalCli(config);
  if (options.dbFilename) await tightenSqliteFiles(options.dbFilename);
  const launcher = cli && options.dbFilename ? await privateLauncher(cli) : undefined;
  const start = () => TestWorkflowEnvironment.createLocal({
    server: {
      executable: launcher ? { type: 'existing-path', path: launcher.path } : cli ? { type: 'existing-path', path: cli } : { type: 'cached-download' },
      ip: '127.0.0.1',
      port: options.port,
      dbFilename: options.dbFilename,
      ui: options.uiPort !== undefined,
      uiPort: options.uiPort,
      searchAttributes: SEARCH_ATTRIBUTE_KEYS,
      log: { format: 'pretty', level: 'warn' },
      extraArgs: [
        ...(options.dbFilename ? (options.sqlitePragmas ?? WAL_PRAGMAS).flatMap((pragma) => ['--sqlite-pragma', pragma]) : []),
        ...(options.namespaces ?? []).flatMap((namespace) => ['--namespace', namespace]),
        ...(options.uiCodecEndpoint && options.uiPort !== undefined ? ['--ui-codec-endpoint', options.uiCodecEndpoint] : []),
      ],
    },
  });
  // The launcher has exec'd the server once it answers; without a CLI of our own, the SDK's download runs under the process's umask.
  const env = await (launcher ? start().finally(launcher.remove) : options.dbFilename ? withPrivateUmask(start) : start());
  return {
    address: env.address,
    namespace: env.namespace ?? 'default',
    uiUrl: options.uiPort !== undefined ? `http://127.0.0.1:${options.uiPort}` : undefined,
    stop: () => env.teardown(),
  };
}
