import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';
import { ticksPerSecond } from './cpu';

/*
 * CPU seconds of every process below `root`, summed by what each process is: its program's name, and for
 * node the script it runs (`main/stack.js`, `main/api.js`, …), so two node processes of a stack are told apart.
 * A process's figure includes its reaped children (PostgreSQL's backends, for the postmaster).
 */
export type ProcessCpu = Record<string, number>;

function statOf(pid: number): { ppid: number; ticks: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const n = (field: number) => Number(fields[field - 3]);
    return { ppid: n(4), ticks: n(14) + n(15) + n(16) + n(17) };
  } catch {
    return undefined;
  }
}

function labelOf(pid: number): string {
  try {
    const program = basename(readlinkSync(`/proc/${pid}/exe`));
    if (program !== 'node') return /^postgres/.test(program) ? 'postgres' : program;
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const script = argv.slice(1).find((a) => !a.startsWith('-'));
    if (!script) return 'node';
    const parts = script.split('/');
    return parts.at(-2) === 'dist' || parts.at(-2) === 'bin' ? parts.at(-1)! : parts.slice(-2).join('/');
  } catch {
    return 'gone';
  }
}

export function processTreeCpu(root: number): ProcessCpu {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) if (/^\d+$/.test(entry)) {
    const stat = statOf(Number(entry));
    if (stat) stats.set(Number(entry), stat);
  }
  const below = (pid: number) => {
    for (let parent = stats.get(pid)?.ppid; parent !== undefined && parent > 1; parent = stats.get(parent)?.ppid) if (parent === root) return true;
    return false;
  };
  const cpu: ProcessCpu = {};
  for (const [pid, stat] of stats) {
    if (!(below(pid) || (pid === root && root !== process.pid))) continue;
    const label = labelOf(pid);
    cpu[label] = (cpu[label] ?? 0) + stat.ticks / ticksPerSecond;
  }
  return cpu;
}
