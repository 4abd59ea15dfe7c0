/**
 * Runs `stop` once on SIGINT or SIGTERM, or when the supervising parent goes away (its IPC channel
 * closes), then exits; a second signal exits at once.
 */
export function onShutdown(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (reason: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`\n${reason}: shutting down…`);
    stop().then(
      () => process.exit(0),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  if (process.connected) process.once('disconnect', () => handler('supervisor gone'));
}
