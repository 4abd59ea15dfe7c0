import type { ChildProcess } from 'node:child_process';
import { access, constants } from 'node:fs/promises';

/** Whether `path` is a file this process may run. */
export async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** SIGTERM, then SIGKILL after `graceMs` if it has not exited: a child that ignores SIGTERM never holds up a shutdown. */
export async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
