import type { Prisma } from './prisma';

/*
 * Pushing an erasure out of PostgreSQL's write-ahead log: the WAL holds every row version written
 * (names and texts included) until its segment is removed, which a checkpoint does for segments older
 * than its redo point. Switching to a new segment first puts that point past everything written so
 * far, so the checkpoint removes the segments that held the erased values (the embedded cluster runs
 * with wal_recycle off: removed, not renamed for reuse with their contents).
 */

/**
 * `pg_switch_wal()` then `CHECKPOINT`, when the service's role may run them (the embedded cluster
 * grants `pg_checkpoint` and EXECUTE on `pg_switch_wal()` to it; another database, as its operator
 * decides). False, and nothing done, when it may not.
 */
export async function switchWalAndCheckpoint(prisma: Prisma): Promise<boolean> {
  const [{ allowed }] = await prisma.$queryRaw<{ allowed: boolean }[]>`
    SELECT has_function_privilege('pg_catalog.pg_switch_wal()', 'EXECUTE') AND pg_has_role('pg_checkpoint', 'MEMBER') AS allowed`;
  if (!allowed) return false;
  await prisma.$queryRaw`SELECT pg_switch_wal()::text`;
  await prisma.$executeRaw`CHECKPOINT`;
  return true;
}

/** Erasures in a burst share one switch and checkpoint: at most one per this interval, per process. */
export const WAL_PUSH_INTERVAL_MS = 30_000;

/**
 * `run` at once when it last ran over `intervalMs` ago, else once when the interval is up, however many
 * ask meanwhile: a user deleting clients in a loop cannot make the database checkpoint in a loop.
 */
export function coalesced(run: () => Promise<unknown>, intervalMs: number, now: () => number = Date.now): () => void {
  let last = -Infinity;
  let due: NodeJS.Timeout | undefined;
  let running = false;
  let again = false;
  const start = () => {
    due = undefined;
    running = true;
    last = now();
    void run().finally(() => {
      running = false;
      if (again) {
        again = false;
        request();
      }
    });
  };
  const request = () => {
    if (running) {
      again = true;
      return;
    }
    if (due) return;
    const wait = last + intervalMs - now();
    if (wait <= 0) return start();
    due = setTimeout(start, wait);
    due.unref();
  };
  return request;
}

const pushes = new WeakMap<Prisma, () => void>();

/** Asks for switchWalAndCheckpoint soon (coalesced); the caller does not wait for it. */
export function pushWalSoon(prisma: Prisma, log?: (error: unknown) => void): void {
  let push = pushes.get(prisma);
  if (!push) {
    push = coalesced(() => switchWalAndCheckpoint(prisma).catch((error: unknown) => log?.(error)), WAL_PUSH_INTERVAL_MS);
    pushes.set(prisma, push);
  }
  push();
}
