import { readFile, rm } from 'node:fs/promises';
import { Runtime } from '@temporalio/worker';

/** The directories the tests made (test/support/temp-dir.ts) and the run's own, unless KEEP_TEST_DIRS=1. */
async function removeTestDirs(): Promise<void> {
  const list = process.env.TEST_DIRS_LIST;
  const workDir = process.env.TEST_WORK_DIR;
  if (process.env.KEEP_TEST_DIRS === '1') return;
  const dirs = list ? (await readFile(list, 'utf8').catch(() => '')).split('\n').filter(Boolean) : [];
  await Promise.all([...dirs, ...(workDir ? [workDir] : [])].map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined)));
}

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __stopTestStack?: () => Promise<void> }).__stopTestStack?.();
  await removeTestDirs();
  // The dev server's client runtime lives in this (the parent) process; without this Jest waits on it.
  await Runtime.instance().shutdown();
}
