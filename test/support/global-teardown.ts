import { Runtime } from '@temporalio/worker';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __stopTestStack?: () => Promise<void> }).__stopTestStack?.();
  // The dev server's client runtime lives in this (the parent) process; without this Jest waits on it.
  await Runtime.instance().shutdown();
}
