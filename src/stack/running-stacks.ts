import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Config } from '../config/index';
import { dataPaths } from '../paths';
import { runningStack, type StackLockInfo } from './stack-lock';

/*
 * Where the tools run beside `npm start` (`npm run token`, `sms`, `number`) find it from another shell:
 * each running stack leaves the path of its data directory in a per-user directory
 * ($XDG_RUNTIME_DIR/crm-messaging/stacks, else <tmp>/crm-messaging-<uid>/stacks); its own stack.lock
 * then says whether it still runs and where.
 */

export interface FoundStack {
  dataDir: string;
  info: StackLockInfo;
}

/** Several stacks run and none is the one asked for: the message names each and how to pick one. */
export class SeveralStacksRunning extends Error {}

const uid = () => (typeof process.getuid === 'function' ? process.getuid() : 0);

export function runningStacksDir(runtimeDir: string | undefined): string {
  return runtimeDir ? join(runtimeDir, 'crm-messaging', 'stacks') : join(tmpdir(), `crm-messaging-${uid()}`, 'stacks');
}

const entryOf = (dir: string, dataDir: string) => join(dir, `${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16)}.json`);

/** Records a stack running on `dataDir`; the returned function removes the record when it stops. */
export async function registerRunningStack(dir: string, dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const entry = entryOf(dir, dataDir);
  await writeFile(entry, `${JSON.stringify({ dataDir: resolve(dataDir) })}\n`, { mode: 0o600 });
  return () => rm(entry, { force: true });
}

/** The stacks running now, from their records: only those whose data directory's lock a live `npm start` holds. */
export async function runningStacks(dir: string): Promise<FoundStack[]> {
  // Records in a directory another user owns are not trusted (a shared /tmp).
  const owner = await stat(dir).then((s) => s.uid, () => undefined);
  if (owner === undefined || owner !== uid()) return [];
  const found: FoundStack[] = [];
  for (const name of (await readdir(dir)).filter((file) => file.endsWith('.json')).sort()) {
    const dataDir = await readFile(join(dir, name), 'utf8').then((text) => (JSON.parse(text) as { dataDir?: string }).dataDir, () => undefined);
    const info = dataDir ? await runningStack(dataPaths(dataDir)) : undefined;
    if (dataDir && info) found.push({ dataDir, info });
  }
  return found;
}

/**
 * The running `npm start` a tool should talk to: the one on DATA_DIR (default .data) when it runs;
 * DATA_DIR given and not running: none; otherwise the only stack running, or, when several run, an error
 * listing them.
 */
export async function findRunningStack(config: Pick<Config, 'DATA_DIR' | 'dataDirGiven' | 'XDG_RUNTIME_DIR'>): Promise<FoundStack | undefined> {
  const own = await runningStack(dataPaths(config.DATA_DIR));
  if (own) return { dataDir: resolve(config.DATA_DIR), info: own };
  if (config.dataDirGiven) return undefined;
  const others = await runningStacks(runningStacksDir(config.XDG_RUNTIME_DIR));
  if (others.length <= 1) return others[0];
  throw new SeveralStacksRunning(
    `${others.length} npm start stacks are running, none on the default data directory ${resolve(config.DATA_DIR)}:\n` +
      others.map(({ dataDir, info }) => `  DATA_DIR=${dataDir}   (pid ${info.pid}${info.api ? `, API ${info.api}` : ''})`).join('\n') +
      '\nSet DATA_DIR to the one you mean.',
  );
}
