import { advanceRotation } from '../../../src/use-cases/rotation/advance';
import { eventually } from '../../support/helpers';
import { clientInRotation, plusMs, rotationAssignments, sleep, startRotationStack } from '../../support/rotation';
import type { TestStack } from '../../support/stack';

/*
 * No worker at a boundary: the next period is handed out when a worker is back, from its scheduled
 * start to its scheduled end, so the periods stay contiguous; periods that ended entirely while no
 * worker ran are recorded as missed.
 */

let stack: TestStack;
let token: string;

beforeAll(async () => ({ stack, token } = await startRotationStack('restart-user')));
afterAll(() => stack.stop());

test('a worker down across a boundary: the next agent\'s period still starts at the boundary and ends at the next one', async () => {
  // A period longer than a worker's restart and its run's first task on a loaded machine take together.
  // starts_at in the past sets the phase: the first boundary comes 5 s after the PUT (its answer and the
  // worker's stop fit in that), not 12 s.
  const { clientId, agents, put, startsAt } = await clientInRotation(stack, token, 3, { period: '12s', starts_at: new Date(Date.now() - 12_000 + 5_000).toISOString() });
  const boundary = plusMs(startsAt, 12_000);
  expect(put.body.current).toMatchObject({ agent: agents[0], until: boundary });

  await stack.stopWorker();
  // The worker was down before the boundary: otherwise it may have handed out the next period itself.
  expect(Date.now()).toBeLessThan(Date.parse(boundary));
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

  // The period the restarted worker hands out is the proof; the ones after it are ordinary cycling (rotation/cycling).
  const periods = await eventually(async () => {
    const made = await rotationAssignments(stack, token, clientId);
    return made.length >= 2 && made[0].status === 'expired' ? made : undefined;
  }, 45_000);
  expect(periods.slice(0, 2).map((p) => [p.agent, p.dt_until])).toEqual([
    [agents[0], boundary],
    [agents[1], plusMs(startsAt, 24_000)],
  ]);
  // Recorded after the worker came back, yet covering the period from its boundary.
  expect(Date.parse(periods[1].assigned_at)).toBeGreaterThanOrEqual(restartedAt - 50);
  const view = await stack.api('GET', `/clients/${clientId}/rotation`, { token });
  expect(view.body.skipped).toEqual([]);
  await stack.api('DELETE', `/clients/${clientId}/rotation`, { token });
}, 90_000);

test('periods that ended entirely while no worker ran are recorded as missed; the one in progress is handed out on schedule', async () => {
  const { clientId, agents, startsAt } = await clientInRotation(stack, token, 3, { period: '2s' });

  await stack.stopWorker();
  try {
    // Half a second past the second boundary: the period from 2 s to 4 s ended while no worker ran.
    await sleep(Date.parse(startsAt) + 4500 - Date.now());
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

test('a period lost while a worker ran says so: the step came late, not the worker', async () => {
  const { clientId, startsAt } = await clientInRotation(stack, token, 2, { period: '1m' });
  const row = await stack.prisma.rotation.findFirstOrThrow({ where: { client: { business: stack.business, id: clientId } } });
  const at = (minutes: number) => new Date(Date.parse(startsAt) + minutes * 60_000);

  // The step of a worker up since 0:30 runs at 5:10, its workflow task having run at 5:05: the periods from 1:00 to 5:00.
  await advanceRotation(stack.prisma, row.key, at(5 + 1 / 6), { asOf: at(5 + 1 / 12), workerSince: at(0.5) });
  // The step of a worker that came back at 7:30 runs at 9:10: from 6:00 to 9:00.
  await advanceRotation(stack.prisma, row.key, at(9 + 1 / 6), { asOf: at(9 + 1 / 6), workerSince: at(7.5) });
  // A worker that came back at 12:00 and stepped at once: from 10:00 to 12:00 nobody ran.
  await advanceRotation(stack.prisma, row.key, at(12), { asOf: at(12), workerSince: at(12) });

  const view = await stack.api('GET', `/clients/${clientId}/rotation`, { token });
  const iso = (minutes: number) => at(minutes).toISOString();
  expect(view.body.skipped.map((s: any) => [s.from, s.until, s.reason])).toEqual([
    [
      iso(1),
      iso(5),
      `A worker was running from ${iso(1)} to ${iso(5)}, but the rotation's step did not run until ${iso(5 + 1 / 6)} (its workflow task ran at ${iso(5 + 1 / 12)}); the periods that ended in between were not handed out`,
    ],
    [
      iso(6),
      iso(9),
      `No worker ran from ${iso(6)} to ${iso(7.5)}, and then the rotation's step did not run until ${iso(9 + 1 / 6)} (its workflow task ran at ${iso(9 + 1 / 6)}); the periods that ended in between were not handed out`,
    ],
    [iso(10), iso(12), `No worker ran from ${iso(10)} to ${iso(12)}; the periods that ended in between were not handed out`],
  ]);
  await stack.api('DELETE', `/clients/${clientId}/rotation`, { token });
});
