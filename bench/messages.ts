import { expectStatus, measure, runBenchmark } from './stack';

/*
 * `npm run bench:messages [-- requests concurrency]`: POST /messages over real HTTP on a fresh embedded
 * stack with the log provider, through the typed client generated from the OpenAPI document. Prints
 * the API's latency and throughput for immediate sends, and how long the worker took until every one
 * of them was recorded `sent`.
 */
const [requests = 300, concurrency = 10] = process.argv.slice(2).map(Number);

runBenchmark(async ({ api, path, prisma, temporal }) => {
  await expectStatus(api.POST('/ext/v2/{businessname}/clients', { params: { path }, body: { _id: 'client-1', phone: '+14155550100' } }), 201);
  const message = (i: number) => ({ message_type: 'text' as const, client: 'client-1', text_message: `Message ${i}` });
  const send = (i: number, key?: string) =>
    expectStatus(api.POST('/ext/v2/{businessname}/messages', { params: { path, header: key ? { 'Idempotency-Key': key } : {} }, body: message(i) }), 202);

  await measure(20, 5, (i) => send(-i)); // warm-up
  // The baseline: a bare workflow.start on the same server, at the same concurrency, on a queue nobody polls.
  const rawStart = await measure(requests, concurrency, (i) => temporal.workflow.start('rawBaseline', { taskQueue: 'nobody-polls', workflowId: `raw-${i}` }).then(() => undefined));
  const started = performance.now();
  const accepted = await measure(requests, concurrency, (i) => send(i, `bench-${i}`));
  const replayed = await measure(requests, concurrency, (i) => send(i, `bench-${i}`));
  const invalid = await measure(requests, concurrency, () =>
    expectStatus(api.POST('/ext/v2/{businessname}/messages', { params: { path }, body: { message_type: 'text', text_message: 'x' } }), 400),
  );
  while ((await prisma.message.count({ where: { status: 'sent' } })) < requests + 20) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const allSentSeconds = +((performance.now() - started) / 1000).toFixed(1);
  const deliveries = await prisma.logDelivery.count();
  const acceptVsRawStart = +(accepted.perSecond / rawStart.perSecond).toFixed(2);
  return { benchmark: 'POST /messages, delay 0, log provider', rawStart, accepted, acceptVsRawStart, goal: '>= 0.95', replayed, invalid, allSentSeconds, deliveries };
});
