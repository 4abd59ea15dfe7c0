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
