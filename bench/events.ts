import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectStatus, measure, percentile, runBenchmark } from './stack';

/*
 * `npm run bench:events [-- events concurrency]`: on a fresh embedded stack, with a real HTTP receiver
 * on this machine:
 * - delivery lateness: `events` message.scheduled events (POST /messages, delay 1 h) to one webhook,
 *   sent at `concurrency` (which saturates the dev server on a small machine), then 200 more one at a
 *   time; for each, the time from its commit (the event's created_at) to the receiver's first request;
 * - the accept rate of POST /messages for a user with three webhooks subscribed to every event beside
 *   one with none, measured alternately in the same run.
 */
const [events = 1000, concurrency = 10] = process.argv.slice(2).map(Number);

async function startReceiver() {
  const firstSeen = new Map<string, number>();
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      const id = String(req.headers['webhook-id']);
      if (!firstSeen.has(id)) firstSeen.set(id, Date.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: (path: string) => `http://127.0.0.1:${port}/${path}`, firstSeen, requests: () => requests, close: () => new Promise((r) => server.close(r)) };
}

runBenchmark(async ({ api, apiAs, path, prisma }) => {
  const receiver = await startReceiver();
  const later = (i: number) => ({ message_type: 'text' as const, client: 'client-1', text_message: `Message ${i}`, delay: 'PT1H' });
  type Api = typeof api;
  const setUp = async (client: Api, hooks: string[]) => {
    await expectStatus(client.POST('/ext/v2/{businessname}/clients', { params: { path }, body: { _id: 'client-1', phone: '+14155550100' } }), 201);
    for (const hook of hooks) {
      await expectStatus(client.POST('/ext/v2/{businessname}/webhooks', { params: { path }, body: { url: receiver.url(hook), events: ['*'] } }), 201);
    }
  };
  const send = (client: Api) => (i: number) => expectStatus(client.POST('/ext/v2/{businessname}/messages', { params: { path }, body: later(i) }), 202);

  // Lateness, commit → receiver.
  const latenessOf = async (userId: string, count: number, inFlight: number) => {
    const client = userId === 'bench-user' ? api : apiAs(userId);
    await setUp(client, []);
    await measure(20, 5, send(client)); // warm-up, before the webhook
    await expectStatus(client.POST('/ext/v2/{businessname}/webhooks', { params: { path }, body: { url: receiver.url(`lateness-${userId}`) } }), 201);
    const accepted = await measure(count, inFlight, send(client));
    const rows = await prisma.event.findMany({ where: { ownerId: userId, type: 'message.scheduled', deliveries: { some: {} } }, select: { id: true, createdAt: true } });
    const deadline = Date.now() + 5 * 60_000;
    while (rows.some((row) => !receiver.firstSeen.has(row.id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const late = rows.filter((row) => receiver.firstSeen.has(row.id)).map((row) => receiver.firstSeen.get(row.id)! - row.createdAt.getTime()).sort((a, b) => a - b);
    // Where the time goes: commit → its workflow started (the hand-over), then → the receiver.
    const handedOver = await prisma.webhookDelivery.findMany({ where: { event: { ownerId: userId } }, select: { handedOverAt: true, event: { select: { createdAt: true } } } });
    const handOver = handedOver.filter((d) => d.handedOverAt).map((d) => d.handedOverAt!.getTime() - d.event.createdAt.getTime()).sort((a, b) => a - b);
    return {
      events: rows.length,
      delivered: late.length,
      p50Ms: percentile(late, 50),
      p99Ms: percentile(late, 99),
      maxMs: late[late.length - 1],
      handOverP50Ms: percentile(handOver, 50),
      handOverP99Ms: percentile(handOver, 99),
      acceptedWhileMeasuring: accepted,
    };
  };
  const saturated = await latenessOf('bench-user', events, concurrency);
  const oneAtATime = await latenessOf('bench-paced', 200, 1);

  // Accept rate with three webhooks vs none, alternately.
  const quiet = apiAs('bench-no-webhooks');
  const busy = apiAs('bench-three-webhooks');
  await setUp(quiet, []);
  await setUp(busy, ['one', 'two', 'three']);
  await measure(20, 5, send(quiet));
  await measure(20, 5, send(busy));
  const rounds = { none: [] as number[], three: [] as number[] };
  for (let round = 0; round < 3; round++) {
    rounds.none.push((await measure(300, concurrency, send(quiet))).perSecond);
    rounds.three.push((await measure(300, concurrency, send(busy))).perSecond);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[1];
  await receiver.close();
  return {
    benchmark: 'events out: webhook delivery lateness and POST /messages with webhooks',
    deliveryLateness: { saturated, oneAtATime },
    acceptRate: {
      perSecondNoWebhooks: rounds.none,
      perSecondThreeWebhooks: rounds.three,
      ratioThreeToNone: +(median(rounds.three) / median(rounds.none)).toFixed(2),
    },
    receiverRequests: receiver.requests(),
  };
});
