import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/*
 * Where this process's CPU goes during one phase: with BENCH_CPU_PROF_DIR set, `profileDuring` records
 * a V8 CPU profile of the phase only (start-up, bundling and the other phases stay out), writes it
 * there (open it in Chrome's DevTools) and returns its self time grouped by what the code belongs to.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The part of the stack a frame's code belongs to: a package, Node itself, this project's folder, or V8's own work. */
function ownerOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (!url) return functionName === '(garbage collector)' ? 'V8: garbage collection' : `V8/native: ${functionName || '(anonymous)'}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return 'node internals';
  const own = /\/(src|bench)\/([\w-]+)/.exec(url);
  return own ? `project: ${own[1]}/${own[2]}` : url;
}

/** Self time per owner, in milliseconds, largest first, with each one's share of the phase's busy time. */
function selfTimeByOwner(profile: Profile, top = 15): { busyMs: number; owners: Record<string, string> } {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byOwner = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const node = nodes.get(id)!;
    if (node.callFrame.functionName === '(idle)') return;
    const us = profile.timeDeltas[i] ?? 0;
    busy += us;
    const owner = ownerOf(node.callFrame);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + us);
  });
  const owners = [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, top);
  return {
    busyMs: Math.round(busy / 1000),
    owners: Object.fromEntries(owners.map(([owner, us]) => [owner, `${Math.round(us / 1000)} ms (${((100 * us) / busy).toFixed(1)}%)`])),
  };
}

/** Runs `work`; with BENCH_CPU_PROF_DIR set, profiles it and hands the summary to `report`. */
export async function profileDuring<T>(name: string, work: () => Promise<T>, report: (summary: ReturnType<typeof selfTimeByOwner>) => void): Promise<T> {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  if (!dir) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
    session.disconnect();
    await writeFile(join(dir, `${name}-${process.pid}.cpuprofile`), JSON.stringify(profile));
    report(selfTimeByOwner(profile));
  }
}
