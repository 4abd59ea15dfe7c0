import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '../../src/stack/stack-lock';

/*
 * Ports a test hands to a process it starts. A port that `listen(0)` returned and then closed can be
 * handed by the kernel to the next process that asks for any port (a Temporal server's internal
 * services, another suite's server) before the test's process binds it. So a test port is taken below
 * the kernel's ephemeral range, which it never hands out on its own, is claimed in a lock file that
 * every test process of this project honours (a live claimer keeps it), and is checked free on every
 * address before it is handed over. Whoever then answers on it is verified with `listenersOf`.
 */
const CLAIMS = join(tmpdir(), 'crm-test-ports');
const FLOOR = 20_000;
const handedOut = new Set<number>();

function ephemeralFloor(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > FLOOR + 1000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function claim(port: number): boolean {
  mkdirSync(CLAIMS, { recursive: true });
  const file = join(CLAIMS, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch {
      const owner = Number(readFileSync(file, 'utf8').trim() || 0);
      if (owner && owner !== process.pid && isAlive(owner)) return false;
      if (owner === process.pid) return false;
      rmSync(file, { force: true });
    }
  }
  return false;
}

const freeOn = (port: number, host: string) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });

/** A port no process listens on, outside the kernel's ephemeral range, claimed for this test process. */
export async function testPort(): Promise<number> {
  const ceiling = ephemeralFloor();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = FLOOR + Math.floor(Math.random() * (ceiling - FLOOR));
    if (handedOut.has(port) || !claim(port)) continue;
    handedOut.add(port);
    if ((await freeOn(port, '0.0.0.0')) && (await freeOn(port, '127.0.0.1'))) return port;
  }
  throw new Error(`no free test port between ${FLOOR} and ${ceiling}`);
}

/** Socket inodes listening on `port` (IPv4 and IPv6), from /proc/net/tcp*. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== '0A') continue; // 0A: LISTEN
      if (parseInt(fields[1].split(':')[1], 16) === port) inodes.add(fields[9]);
    }
  }
  return inodes;
}

/** The pids of the processes listening on `port` on this machine (Linux /proc). */
export function listenersOf(port: number): number[] {
  const inodes = listeningInodes(port);
  if (!inodes.size) return [];
  const pids: number[] = [];
  for (const pid of processIds()) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target = '';
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const match = /^socket:\[(\d+)\]$/.exec(target);
      if (match && inodes.has(match[1])) {
        pids.push(pid);
        break;
      }
    }
  }
  return pids;
}

export function processIds(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}
