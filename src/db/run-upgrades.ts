import type { Prisma } from './prisma';

/* Every change of `run_upgrades`: which workflow generation this database's runs were upgraded to, and when. */

export interface RunUpgradeRow {
  generation: number;
  /** When the upgrade began: the runs of the earlier generation are those started before it. */
  cutoff: Date;
  finishedAt: Date | null;
}

/**
 * The upgrade to `generation`: begun now unless an earlier attempt began it (whose cutoff stands, so that
 * a second attempt ends no run the first one started again).
 */
export async function beginRunUpgrade(prisma: Prisma, generation: number, now: Date): Promise<RunUpgradeRow> {
  await prisma.runUpgrade.createMany({ data: [{ generation, cutoff: now }], skipDuplicates: true });
  return prisma.runUpgrade.findUniqueOrThrow({ where: { generation } });
}

/** The upgrade to `generation` is done: its runs' clocks run again. */
export async function finishRunUpgrade(prisma: Prisma, generation: number, now: Date): Promise<void> {
  await prisma.runUpgrade.updateMany({ where: { generation, finishedAt: null }, data: { finishedAt: now } });
}

export function runUpgradeOf(prisma: Prisma, generation: number): Promise<RunUpgradeRow | null> {
  return prisma.runUpgrade.findUnique({ where: { generation } });
}
