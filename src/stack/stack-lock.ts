import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { dataPaths } from '../paths';

type DataPaths = ReturnType<typeof dataPaths>;

export interface StackLockInfo {
  pid: number;
  state: 'starting' | 'running' | 'stopping';
  startedAt: string;
  api?: string;
  /** The running stack's Temporal frontend, namespace and Nexus endpoint, for tools run beside it (the deal-won example). */
  temporal?: { address: string; namespace: string; nexusEndpoint: string };
  /** The development secret the API checks tokens with, when npm start generated it (no JWT_SECRET or JWT_PUBLIC_KEY given), for `npm run token`. */
  devJwtSecret?: string;
  /** JWT_BUSINESS_CLAIM as the API checks it, for `npm run token --business`; absent when tokens are not bound to businesses. */
  jwtBusinessClaim?: string;
  /** The carrier simulator (MESSAGE_PROVIDER=simulator): its API, account and number, for `npm run sms`. */
  simulator?: { url: string; accountSid: string; number: string };
}

export interface StackLock {
  update(change: Partial<StackLockInfo>): Promise<void>;
  release(): Promise<void>;
}

/** Another `npm start` holds the data directory; the message says which and how to stop it. */
export class DataDirectoryInUse extends Error {}

const STOPPING_WAIT_MS = 90_000;
const LEFTOVER_STOP_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function processList(): Promise<{ pid: number; args: string }[]> {
  if (existsSync('/proc/self/cmdline')) {
    const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
    const listed = await Promise.all(
      pids.map(async (pid) => ({ pid: Number(pid), args: (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0').join(' ') })),
    );
    return listed.filter((entry) => entry.args);
  }
  const { stdout } = await promisify(execFile)('ps', ['-eo', 'pid=,args='], { maxBuffer: 16 << 20 });
  return stdout.split('\n').flatMap((line) => {
    const match = /^\s*(\d+)\s+(.*)$/.exec(line);
    return match ? [{ pid: Number(match[1]), args: match[2] }] : [];
  });
}

async function readInfo(file: string): Promise<StackLockInfo | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as StackLockInfo;
  } catch {
    return undefined;
  }
}

async function holder(file: string): Promise<StackLockInfo | undefined> {
  const info = await readInfo(file);
  if (!info || info.pid === process.pid || !isAlive(info.pid)) return undefined;
  // A reused pid is not a stack: only a process that still runs the stack entry holds the lock.
  const running = (await processList()).find((entry) => entry.pid === info.pid);
  return running && /stack\.(js|ts)/.test(running.args) ? info : undefined;
}

/** What the `npm start` holding this data directory recorded, when it is alive and running. */
export async function runningStack(paths: DataPaths): Promise<StackLockInfo | undefined> {
  const info = await holder(paths.stackLock);
  return info?.state === 'running' ? info : undefined;
}

/**
 * The servers a dead `npm start` left behind on this data directory: its Temporal dev server (found by
 * its SQLite file) or server engine and its UI (by their configuration), and its PostgreSQL postmaster
 * (found by its data directory), possibly still stopping.
 */
type Leftover = { pid: number; name: 'temporal' | 'postgres' };

export async function leftoverServers(paths: DataPaths): Promise<Leftover[]> {
  return (await processList()).flatMap(({ pid, args }): Leftover[] => {
    if (pid === process.pid) return [];
    if (args.includes(paths.temporalDb) && /temporal/.test(args)) return [{ pid, name: 'temporal' }];
    // The server engine and the UI beside it, each run from its binary with a path under its directory.
    if (args.includes(`${paths.temporalServer}/`) && /^\S*\/(server|ui-server) /.test(args)) return [{ pid, name: 'temporal' }];
    if (args.includes(`-D ${paths.postgres}`) && /postgres/.test(args)) return [{ pid, name: 'postgres' }];
    return [];
  });
}

/** Stops what a dead run left: Temporal with SIGTERM, PostgreSQL with a fast shutdown; SIGKILL after 30 s. */
export async function stopLeftovers(paths: DataPaths, log: (line: string) => void): Promise<void> {
  const leftovers = await leftoverServers(paths);
  if (!leftovers.length) return;
  log(`Stopping what an earlier run left on ${paths.stackLock.replace(/\/stack\.lock$/, '')}: ${leftovers.map((l) => `${l.name} (pid ${l.pid})`).join(', ')}`);
  for (const { pid, name } of leftovers) {
    try {
      process.kill(pid, name === 'postgres' ? 'SIGINT' : 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  const deadline = Date.now() + LEFTOVER_STOP_MS;
  while (leftovers.some(({ pid }) => isAlive(pid)) && Date.now() < deadline) await sleep(100);
  for (const { pid } of leftovers.filter(({ pid }) => isAlive(pid))) process.kill(pid, 'SIGKILL');
  while (leftovers.some(({ pid }) => isAlive(pid))) await sleep(100);
}

/**
 * Takes the data directory for this process. A live stack that is stopping is waited for; a live one
 * that runs is a DataDirectoryInUse; a dead one's lock is taken over and its leftover servers stopped.
 */
export async function acquireStackLock(paths: DataPaths, log: (line: string) => void): Promise<StackLock> {
  const info: StackLockInfo = { pid: process.pid, state: 'starting', startedAt: new Date().toISOString() };
  const write = () => writeFile(paths.stackLock, `${JSON.stringify(info)}\n`);
  let waitedSince: number | undefined;
  for (;;) {
    try {
      const handle = await open(paths.stackLock, 'wx');
      await handle.writeFile(`${JSON.stringify(info)}\n`);
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const current = await holder(paths.stackLock);
    if (!current) {
      await rm(paths.stackLock, { force: true });
      continue;
    }
    if (current.state !== 'stopping') {
      throw new DataDirectoryInUse(
        `The data directory ${paths.stackLock.replace(/\/stack\.lock$/, '')} is in use by npm start (pid ${current.pid}` +
          `${current.api ? `, API ${current.api}` : ''}, since ${current.startedAt}). Stop it with Ctrl-C in its terminal or \`kill ${current.pid}\`, ` +
          'or give this one another DATA_DIR.',
      );
    }
    if (waitedSince === undefined) {
      waitedSince = Date.now();
      log(`Waiting for the stack that is stopping (pid ${current.pid}) to release the data directory…`);
    } else if (Date.now() - waitedSince > STOPPING_WAIT_MS) {
      throw new DataDirectoryInUse(`npm start (pid ${current.pid}) has been stopping for over ${STOPPING_WAIT_MS / 1000} s; stop it with \`kill -9 ${current.pid}\` and start again.`);
    }
    await sleep(250);
  }
  await stopLeftovers(paths, log);
  return {
    update: async (change) => {
      Object.assign(info, change);
      await write();
    },
    release: async () => {
      if ((await readInfo(paths.stackLock))?.pid === process.pid) await rm(paths.stackLock, { force: true });
    },
  };
}
