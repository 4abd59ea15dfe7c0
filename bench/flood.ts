import { spawn } from 'node:child_process';

/*
 * A tenant's flood of one door, for the fairness bench and test: `concurrency` senders in another process
 * (so that the one measuring shares no event loop with them), each sending again as soon as it is answered,
 * Retry-After or not, until stopped.
 */
const SCRIPT = `
  const [url, token, body, concurrency] = process.argv.slice(1);
  const statuses = {};
  let stopping = false;
  const send = async () => {
    while (!stopping) {
      try {
        const res = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' }, body });
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      } catch { statuses.error = (statuses.error ?? 0) + 1; }
    }
  };
  const senders = Array.from({ length: Number(concurrency) }, send);
  process.stdin.on('data', async () => {
    stopping = true;
    await Promise.all(senders);
    process.stdout.write(JSON.stringify(statuses));
    process.exit(0);
  });
  process.stdout.write('started\\n');
`;

export interface Flood {
  /** Once the senders run. */
  started: Promise<void>;
  /** Stops the senders: the statuses they were answered, counted (`error` for no answer). */
  stop(): Promise<Record<string, number>>;
  /** Ends the process at once (a test's cleanup). */
  kill(): void;
}

/** POSTs of `body` to `url` as `token`'s subject, from `concurrency` senders, until `stop()`. */
export function flood(url: string, token: string, body: unknown, concurrency: number): Flood {
  const child = spawn(process.execPath, ['-e', SCRIPT, url, token, JSON.stringify(body), String(concurrency)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    started: new Promise<void>((resolve) => child.stdout.once('data', () => resolve())),
    async stop() {
      const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin.write('stop\n');
      await ended;
      return JSON.parse(output.slice(output.indexOf('\n') + 1)) as Record<string, number>;
    },
    kill: () => child.kill(),
  };
}
