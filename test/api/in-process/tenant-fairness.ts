import { flood, type Flood } from '../../../bench/flood';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';
import { request } from '../../support/http';

/*
 * One tenant's flood must not slow or refuse another's sends: the message gate's places are shared
 * out between the tokens' subjects, so the flooding one waits for (or is refused) its own places.
 */
let stack: TestStack;
let origin: string;
const floods: Flood[] = [];
beforeAll(async () => {
  stack = await startTestStack();
  origin = new URL(stack.baseUrl).origin;
});
afterAll(async () => {
  for (const flooding of floods) flooding.kill();
  await stack.stop();
});

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
  floods.push(flooding);
  await flooding.started;
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the flood fills the gate
  const during = await quietSends(40);
  const noisyStatuses = await flooding.stop();

  expect(during).toEqual(during.map(() => 202));
  // The flood did reach the gate: some of its sends accepted, the rest waited or were refused.
  expect(noisyStatuses['202']).toBeGreaterThan(0);
  expect(Object.keys(noisyStatuses).filter((status) => status !== '202' && status !== '503')).toEqual([]);
}, 120_000);
