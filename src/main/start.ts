import './compile-cache';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { loadConfig } from '../config/index';
import { isAlive, stopLeftovers } from '../stack/stack-lock';
import { dataPaths } from '../paths';

/*
 * `npm start`: supervises the stack (src/main/stack.ts) in a process group of its own. A terminal's Ctrl-C
 * reaches only this process (and npm), never the Temporal dev server or PostgreSQL directly, so the
 * stack stops in its order: API, worker, Temporal, PostgreSQL. If the stack dies without stopping, this
 * stops what it left running; if this process dies, the stack notices and stops itself; if whatever
 * started this process dies (`kill -9` of npm), this notices and stops the stack as on Ctrl-C.
 */
const FORCE_AFTER_MS = 2_000;
const PARENT_CHECK_MS = 500;

/** The process that started this one (npm when run by `npm start`; its script's shell `exec`s into this). */
const parentPid = process.ppid;
/** A parent that dies hands its children to another process: the parent pid read from /proc changes. */
function parentAlive(): boolean {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parentPid;
  } catch {
    return isAlive(parentPid); // no /proc (macOS): whether the pid still answers
  }
}

const stackEntry = join(__dirname, `stack${extname(__filename)}`);
const stack = spawn(process.execPath, [...process.execArgv, stackEntry], { detached: true, stdio: ['inherit', 'inherit', 'inherit', 'ipc'] });

let firstSignalAt: number | undefined;
/** Passes the signal on as it came (Ctrl-C is SIGINT, a supervisor's stop SIGTERM), so the stack's line names it; a hang-up stops it as SIGTERM. */
const forward = (signal: NodeJS.Signals = 'SIGTERM') => {
  // npm passes the terminal's Ctrl-C on too, so one key press can arrive twice; a later one forces.
  if (firstSignalAt === undefined) {
    firstSignalAt = Date.now();
    stack.kill(signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM');
  } else if (Date.now() - firstSignalAt > FORCE_AFTER_MS) {
    console.log('Stopping at once.');
    stack.kill('SIGKILL');
  }
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => forward(signal));

const watchParent = setInterval(() => {
  if (parentAlive()) return;
  clearInterval(watchParent);
  console.error(`What started npm start (pid ${parentPid}) is gone; stopping the stack…`);
  forward('SIGTERM');
}, PARENT_CHECK_MS);

stack.on('exit', (code, signal) => {
  if (!signal) process.exit(code ?? 1);
  console.error(`The stack was killed (${signal}); stopping what it left running…`);
  stopLeftovers(dataPaths(loadConfig().DATA_DIR), (line) => console.error(line))
    .catch((error) => console.error(error))
    .finally(() => process.exit(1));
});
