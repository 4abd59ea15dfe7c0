export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __stopTestStack?: () => Promise<void> }).__stopTestStack?.();
}
