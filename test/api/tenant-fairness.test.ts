import { spawn } from 'node:child_process';
import { startTestStack, uniqueName, type TestStack } from '../support/stack';
import { request } from '../support/http';

/*
 * One tenant's flood must not slow or refuse another's sends: the message gate's places are shared
 * out between the tokens' subjects, so the flooding one waits for (or is refused) its own places.
 */
let stack: TestStack;
let origin: string;
const floods: { kill(): void }[] = [];
beforeAll(async () => {
  stack = await startTestStack();
  origin = new URL(stack.baseUrl).origin;
});
afterAll(async () => {
  for (const flooding of floods) flooding.kill();
  await stack.stop();
});

/**
 * `concurrency` senders in another process, each sending again as soon as it is answered (a flood does
 * not wait out Retry-After), until stopped; `stop()` gives the statuses they were answered with.
 */
function flood(url: string, token: string, body: unknown, concurrency: number) {
  const script = `
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
  const child = spawn(process.execPath, ['-e', script, url, token, JSON.stringify(body), String(concurrency)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const started = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  floods.push({ kill: () => child.kill() });
  return {
    started,
    async stop(): Promise<Record<string, number>> {
      const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin.write('stop\n');
      await ended;
      return JSON.parse(output.slice(output.indexOf('\n') + 1));
    },
  };
}

test('100 concurrent senders of one tenant leave another tenant refused nothing, while the flood itself reaches the gate', async () => {
  const noisy = { business: uniqueName('noisy-biz'), token: stack.token(uniqueName('noisy')) };
  const quiet = { business: uniqueName('quiet-biz'), token: stack.token(uniqueName('quiet')) };
  const messages = (business: string) => `${origin}/ext/v2/${business}/messages`;
  for (const tenant of [noisy, quiet]) {
    const created = await request('POST', `${origin}/ext/v2/${tenant.business}/clients`, { token: tenant.token, body: { _id: 'c1', phone: '+14155550100' } });
    expect(created.status).toBe(201);
  }
  const body = { message_type: 'text', client: 'c1', text_message: 'Hello', delay: '1h' };
  const quietSends = async (count: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) statuses.push((await request('POST', messages(quiet.business), { token: quiet.token, body })).status);
    return statuses;
  };

  // The quiet tenant's latency beside the flood is a figure, measured by `npm run bench -- fairness`
  // (docs/performance.md): on a machine shared with the rest of the suite it says little.
  const flooding = flood(messages(noisy.business), noisy.token, body, 100);
  await flooding.started;
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the flood fills the gate
  const during = await quietSends(40);
  const noisyStatuses = await flooding.stop();

  expect(during).toEqual(during.map(() => 202));
  // The flood did reach the gate: some of its sends accepted, the rest waited or were refused.
  expect(noisyStatuses['202']).toBeGreaterThan(0);
  expect(Object.keys(noisyStatuses).filter((status) => status !== '202' && status !== '503')).toEqual([]);
}, 120_000);
