import { eventually } from './support/helpers';
import { clientWithAgents, plusMs, rotationAssignments, sleep } from './support/rotation';
import { startTestStack, type TestStack } from './support/stack';

/*
 * No worker at a boundary: the next period is handed out when a worker is back, from its scheduled
 * start to its scheduled end, so the periods stay contiguous; periods that ended entirely while no
 * worker ran are recorded as missed.
 */

let stack: TestStack;
let token: string;

beforeAll(async () => {
  stack = await startTestStack({ rotationMinPeriodMs: 1000 });
  token = stack.token('restart-user');
});
afterAll(() => stack.stop());

test('a worker down across a boundary: the next agent\'s period still starts at the boundary and ends at the next one', async () => {
  const { clientId, agents } = await clientWithAgents(stack, token, 3);
  const put = await stack.api('PUT', `/clients/${clientId}/rotation`, { token, body: { agents, period: '6s' } });
  const startsAt = put.body.starts_at as string;
  const boundary = plusMs(startsAt, 6000);
  expect(put.body.current).toMatchObject({ agent: agents[0], until: boundary });

  await stack.stopWorker();
  try {
    await sleep(Date.parse(boundary) + 1000 - Date.now());
    // Overdue: nobody has handed out the next period yet, and the view says so.
    const overdue = await stack.api('GET', `/clients/${clientId}/rotation`, { token });
    expect(overdue.body).toMatchObject({ current: null, next: { agent: agents[1], from: boundary }, next_change_at: boundary });
    expect((await rotationAssignments(stack, token, clientId)).map((p) => [p.agent, p.status])).toEqual([[agents[0], 'active']]);
  } finally {
    await stack.startWorker();
  }
  const restartedAt = Date.now();

  const periods = await eventually(async () => {
    const made = await rotationAssignments(stack, token, clientId);
    return made.length >= 3 && made[0].status === 'expired' ? made : undefined;
  }, 30_000);
  expect(periods.slice(0, 3).map((p) => [p.agent, p.dt_until])).toEqual([
    [agents[0], boundary],
    [agents[1], plusMs(startsAt, 12_000)],
    [agents[2], plusMs(startsAt, 18_000)],
  ]);
  // Recorded after the worker came back, yet covering the period from its boundary.
  expect(Date.parse(periods[1].assigned_at)).toBeGreaterThanOrEqual(restartedAt - 50);
  const view = await stack.api('GET', `/clients/${clientId}/rotation`, { token });
  expect(view.body.skipped).toEqual([]);
  await stack.api('DELETE', `/clients/${clientId}/rotation`, { token });
}, 60_000);

test('periods that ended entirely while no worker ran are recorded as missed; the one in progress is handed out on schedule', async () => {
  const { clientId, agents } = await clientWithAgents(stack, token, 3);
  const put = await stack.api('PUT', `/clients/${clientId}/rotation`, { token, body: { agents, period: '2s' } });
  const startsAt = put.body.starts_at as string;

  await stack.stopWorker();
  try {
    await sleep(Date.parse(startsAt) + 5000 - Date.now());
  } finally {
    await stack.startWorker();
  }
  const view = await eventually(async () => {
    const res = await stack.api('GET', `/clients/${clientId}/rotation`, { token });
    return res.body.skipped.length > 0 && res.body.current ? res.body : undefined;
  }, 20_000);
  const [missed] = view.skipped;
  expect(missed).toMatchObject({ from: plusMs(startsAt, 2000), agent: null, position: null, reason: expect.stringMatching(/^No worker ran from /) });
  // The handed-out period starts where the missed ones end, on a boundary of the schedule.
  const k = (Date.parse(missed.until) - Date.parse(startsAt)) / 2000;
  expect(Number.isInteger(k) && k >= 2).toBe(true);
  const made = await rotationAssignments(stack, token, clientId);
  const resumed = made.find((p) => p.dt_until === plusMs(startsAt, (k + 1) * 2000));
  expect(resumed?.agent).toBe(agents[k % 3]);
  await stack.api('DELETE', `/clients/${clientId}/rotation`, { token });
}, 60_000);
