import { readFileSync } from 'node:fs';
import { processIds } from './ports';

/* Processes by their /proc entries: who descends from whom, and the same process again (not a reused pid). */

export interface ProcessId {
  pid: number;
  /** Start time in clock ticks since boot: with the pid, names one process for good. */
  startedAt: string;
  args: string;
}

function stat(pid: number): { ppid: number; startedAt: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields after its last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), startedAt: fields[19] };
  } catch {
    return undefined;
  }
}

export function processId(pid: number): ProcessId | undefined {
  const info = stat(pid);
  if (!info) return undefined;
  let args = '';
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    // gone meanwhile
  }
  return { pid, startedAt: info.startedAt, args };
}

/** `pid` and every process below it, now. */
export function processTree(pid: number): ProcessId[] {
  const children = new Map<number, number[]>();
  for (const each of processIds()) {
    const info = stat(each);
    if (info) children.set(info.ppid, [...(children.get(info.ppid) ?? []), each]);
  }
  const found: ProcessId[] = [];
  const visit = (p: number) => {
    const id = processId(p);
    if (!id) return;
    found.push(id);
    for (const child of children.get(p) ?? []) visit(child);
  };
  visit(pid);
  return found;
}

/** Whether this very process (not a later one with its pid) still runs, a zombie counting as gone. */
export function stillRunning(id: ProcessId): boolean {
  const info = stat(id.pid);
  if (!info || info.startedAt !== id.startedAt) return false;
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${id.pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** SIGTERM to each still running, SIGKILL to what is left after `graceMs`; resolves once all are gone. */
export async function stopProcesses(ids: ProcessId[], graceMs = 5_000): Promise<void> {
  const signal = (id: ProcessId, name: NodeJS.Signals) => {
    try {
      if (stillRunning(id)) process.kill(id.pid, name);
    } catch {
      // gone meanwhile
    }
  };
  for (const id of ids) signal(id, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (ids.some(stillRunning) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  for (const id of ids) signal(id, 'SIGKILL');
  while (ids.some(stillRunning)) await new Promise((resolve) => setTimeout(resolve, 50));
}
