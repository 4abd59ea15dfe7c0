import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/*
 * CPU seconds spent by every process of a bench stack: this process (API and worker run in it), the
 * Temporal process it spawned (dev server or server engine) and PostgreSQL's postmaster with its
 * backends, all descendants of this process. Read from /proc/<pid>/stat before and after a phase.
 */

export const CPU_GROUPS = ['bench/API+worker', 'Temporal', 'PostgreSQL'] as const;
export type CpuGroup = (typeof CPU_GROUPS)[number];

interface ProcessTicks {
  group: CpuGroup;
  /** utime + stime: the process's own CPU. */
  own: number;
  /** cutime + cstime: its children that exited and were reaped (PostgreSQL backends, for the postmaster). */
  reaped: number;
}

export type CpuSnapshot = Map<number, ProcessTicks>;

export const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function readStat(pid: number) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3 (state) on.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const n = (field: number) => Number(fields[field - 3]);
    return { ppid: n(4), own: n(14) + n(15), reaped: n(16) + n(17) };
  } catch {
    return undefined; // exited meanwhile
  }
}

function groupOf(pid: number): CpuGroup {
  let name = '';
  try {
    name = readlinkSync(`/proc/${pid}/exe`);
  } catch {
    try {
      name = readFileSync(`/proc/${pid}/comm`, 'utf8');
    } catch {
      /* exited */
    }
  }
  const base = name.split('/').pop() ?? '';
  if (/postgres/.test(base)) return 'PostgreSQL';
  if (/temporal/.test(name)) return 'Temporal';
  return 'bench/API+worker';
}

/** Ticks of this process and every descendant, each attributed to the group of its top ancestor below this process. */
export function cpuSnapshot(root = process.pid): CpuSnapshot {
  const parents = new Map<number, number>();
  const stats = new Map<number, NonNullable<ReturnType<typeof readStat>>>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (!stat) continue;
    stats.set(Number(entry), stat);
    parents.set(Number(entry), stat.ppid);
  }
  const snapshot: CpuSnapshot = new Map();
  const rootStat = stats.get(root);
  if (rootStat) snapshot.set(root, { group: 'bench/API+worker', own: rootStat.own, reaped: rootStat.reaped });
  const topGroups = new Map<number, CpuGroup>();
  for (const [pid, stat] of stats) {
    // Walk up to the root; the child of the root on the way names the group.
    let child = pid;
    let parent = parents.get(pid);
    while (parent !== undefined && parent !== root && parent > 1) {
      child = parent;
      parent = parents.get(parent);
    }
    if (parent !== root || pid === root) continue;
    if (!topGroups.has(child)) topGroups.set(child, groupOf(child));
    snapshot.set(pid, { group: topGroups.get(child)!, own: stat.own, reaped: stat.reaped });
  }
  return snapshot;
}

/**
 * CPU seconds per group between two snapshots. A process gone by `after` was reaped by its parent,
 * whose `reaped` grew by all its ticks: the part it had spent before the phase is taken off again.
 */
export function cpuSeconds(before: CpuSnapshot, after: CpuSnapshot): Record<CpuGroup | 'total', number> {
  const ticks: Record<CpuGroup, number> = { 'bench/API+worker': 0, Temporal: 0, PostgreSQL: 0 };
  for (const [pid, now] of after) {
    const then = before.get(pid);
    ticks[now.group] += now.own + now.reaped - (then ? then.own + then.reaped : 0);
  }
  for (const [pid, then] of before) {
    if (!after.has(pid)) ticks[then.group] -= then.own + then.reaped;
  }
  const seconds = Object.fromEntries(Object.entries(ticks).map(([group, t]) => [group, t / ticksPerSecond])) as Record<CpuGroup, number>;
  return { ...seconds, total: seconds['bench/API+worker'] + seconds.Temporal + seconds.PostgreSQL };
}

/** CPU seconds one process has spent so far (user + system), 0 when it is gone. */
export function processCpuSeconds(pid: number): number {
  const stat = readStat(pid);
  return stat ? stat.own / ticksPerSecond : 0;
}

/** CPU seconds per item for each group and their total, and the seconds themselves. */
function perItem(seconds: Record<CpuGroup | 'total', number>, items: number) {
  const round = (x: number) => +x.toFixed(4);
  return {
    items,
    secondsPerItem: Object.fromEntries(Object.entries(seconds).map(([group, s]) => [group, round(s / items)])) as Record<CpuGroup | 'total', number>,
    seconds: Object.fromEntries(Object.entries(seconds).map(([group, s]) => [group, +s.toFixed(2)])) as Record<CpuGroup | 'total', number>,
  };
}

/** Starts measuring; `per(items)` gives CPU seconds per item for each group and their total since the start. */
export function startCpuMeter() {
  const before = cpuSnapshot();
  return {
    per(items: number) {
      return perItem(cpuSeconds(before, cpuSnapshot()), items);
    },
  };
}

export type CpuPerItem = ReturnType<ReturnType<typeof startCpuMeter>['per']>;

/** CPU over several separate phases (alternating rounds), summed: `during(work)` measures one, `per(items)` divides the sum. */
export function cpuAccumulator() {
  const sums: Record<CpuGroup | 'total', number> = { 'bench/API+worker': 0, Temporal: 0, PostgreSQL: 0, total: 0 };
  return {
    async during<T>(work: () => Promise<T>): Promise<T> {
      const before = cpuSnapshot();
      try {
        return await work();
      } finally {
        const seconds = cpuSeconds(before, cpuSnapshot());
        for (const group of Object.keys(sums) as (CpuGroup | 'total')[]) sums[group] += seconds[group];
      }
    },
    per(items: number): CpuPerItem {
      return perItem(sums, items);
    },
  };
}
