import { measure, rssMb, startBenchStack } from './stack';

/*
 * `npm run bench:messages [-- requests concurrency]`: POST /messages over real HTTP on a fresh embedded
 * stack with the log provider. Prints the API's latency and throughput for immediate sends, and how
 * long the worker took until every one of them was recorded `sent`.
 */
async function main() {
  const [requests = 300, concurrency = 10] = process.argv.slice(2).map(Number);
  const stack = await startBenchStack();
  try {
    const headers = { authorization: `Bearer ${stack.token('bench-user')}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown, expected: number, extra: Record<string, string> = {}) => {
      const res = await fetch(`${stack.baseUrl}${path}`, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
      if (res.status !== expected) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    };
    await post('/clients', { _id: 'client-1', phone: '+14155550100' }, 201);
    const message = (i: number) => ({ message_type: 'text', client: 'client-1', text_message: `Message ${i}` });

    await measure(20, 5, (i) => post('/messages', message(-i), 202)); // warm-up
    const rssBefore = rssMb();
    const started = performance.now();
    const accepted = await measure(requests, concurrency, (i) => post('/messages', message(i), 202, { 'Idempotency-Key': `bench-${i}` }));
    const replayed = await measure(requests, concurrency, (i) => post('/messages', message(i), 202, { 'Idempotency-Key': `bench-${i}` }));
    const invalid = await measure(requests, concurrency, () => post('/messages', { message_type: 'text', text_message: 'x' }, 400));
    let sent = 0;
    while ((sent = await stack.prisma.message.count({ where: { status: 'sent' } })) < requests + 20) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const allSentSeconds = +((performance.now() - started) / 1000).toFixed(1);
    const deliveries = await stack.prisma.logDelivery.count();
    console.log(JSON.stringify({ benchmark: 'POST /messages, delay 0, log provider', accepted, replayed, invalid, allSentSeconds, sent, deliveries }, null, 2));
    console.log(JSON.stringify({ rssMbBefore: rssBefore, rssMbAfter: rssMb(), heapUsedMb: +(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1) }));
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
