import { eventually } from '../../support/helpers';
import { clientWithAgents, plusMs, rotationAssignments, sleep, startRotationStack, type RotationAssignment } from '../../support/rotation';
import type { TestStack } from '../../support/stack';

/*
 * Replacing a rotation (from the next boundary, now, or at a later start) and agents that drop out. Each
 * test owns its client and agents, and waits on its own boundaries: they run side by side
 * (`test.concurrent`, docs/design.md "Suite: concurrent tests inside a file").
 */

let stack: TestStack;
let token: string;

beforeAll(async () => ({ stack, token } = await startRotationStack('replace-user')));
afterAll(() => stack.stop());

async function periodsUntil(clientId: string, count: number): Promise<RotationAssignment[]> {
  return eventually(async () => {
    const made = await rotationAssignments(stack, token, clientId);
    return made.length >= count ? made : undefined;
  }, 30_000);
}

const put = (clientId: string, body: object) => stack.api('PUT', `/clients/${clientId}/rotation`, { token, body });
const stop = (clientId: string) => stack.api('DELETE', `/clients/${clientId}/rotation`, { token });

test.concurrent('a new PUT replaces the rotation from the next boundary: the period in progress runs out, then the new list starts with its first agent', async () => {
  const { clientId, agents } = await clientWithAgents(stack, token, 4);
  const [a1, a2, b1, b2] = agents;
  const first = await put(clientId, { agents: [a1, a2], period: '3s' });
  const boundary = first.body.current.until as string;

  const replaced = await put(clientId, { agents: [b1, b2], period: '2s', ds_notes: 'new team' });
  expect(replaced.status).toBe(200);
  expect(replaced.body).toMatchObject({
    agents: [b1, b2],
    period: '2s',
    starts_at: boundary,
    current: { agent: a1, from: first.body.current.from, until: boundary },
    next: { agent: b1, position: 1, of: 2, from: boundary },
    next_change_at: boundary,
    version: 2,
  });

  const periods = await periodsUntil(clientId, 3);
  expect(periods.slice(0, 3).map((p) => [p.agent, p.dt_until, p.ds_notes])).toEqual([
    [a1, boundary, null],
    [b1, plusMs(boundary, 2000), 'new team'],
    [b2, plusMs(boundary, 4000), 'new team'],
  ]);
  await stop(clientId);
});

test.concurrent('"apply": "now" cuts the period in progress short and starts the new rotation at once, with no gap', async () => {
  const { clientId, agents } = await clientWithAgents(stack, token, 3);
  const [a1, b1, b2] = agents;
  const first = await put(clientId, { agents: [a1], period: '1m' });
  expect(first.body.current).toMatchObject({ agent: a1 });

  // Periods of 4 s: the answer shows the period in progress, so it must come before that period ends, on a loaded machine too.
  const now = await put(clientId, { agents: [b1, b2], period: '4s', apply: 'now' });
  expect(now.status).toBe(200);
  const switchedAt = now.body.current.from as string;
  expect(now.body).toMatchObject({ agents: [b1, b2], starts_at: switchedAt, current: { agent: b1, position: 1, until: plusMs(switchedAt, 4000) } });
  expect(Date.parse(switchedAt)).toBeLessThan(Date.parse(first.body.current.until));

  // a1's assignment now ends where b1's period begins, and expires there.
  await eventually(async () => (await rotationAssignments(stack, token, clientId)).find((p) => p.agent === a1)?.status === 'expired');
  const periods = await periodsUntil(clientId, 3);
  expect(periods.slice(0, 3).map((p) => [p.agent, p.dt_until])).toEqual([
    [a1, switchedAt],
    [b1, plusMs(switchedAt, 4000)],
    [b2, plusMs(switchedAt, 8000)],
  ]);
  await stop(clientId);
});

test.concurrent('a replacement with a later starts_at waits for it: the rotation in force goes on until then, its last period cut there', async () => {
  const { clientId, agents } = await clientWithAgents(stack, token, 3);
  const [a1, a2, b1] = agents;
  const first = await put(clientId, { agents: [a1, a2], period: '3s' });
  const startsAt = first.body.starts_at as string;
  // After a2's boundary at 3 s, within its period: a2's period is the one cut.
  const later = plusMs(startsAt, 4000);

  const replaced = await put(clientId, { agents: [b1], period: '2s', starts_at: later });
  expect(replaced.body).toMatchObject({
    agents: [a1, a2],
    replacement: { agents: [b1], period: '2s', starts_at: later, from: later },
    next: { agent: a2, from: plusMs(startsAt, 3000) },
  });

  const periods = await periodsUntil(clientId, 3);
  expect(periods.slice(0, 3).map((p) => [p.agent, p.dt_until])).toEqual([
    [a1, plusMs(startsAt, 3000)],
    [a2, later],
    [b1, plusMs(later, 2000)],
  ]);
  const view = await stack.api('GET', `/clients/${clientId}/rotation`, { token });
  expect(view.body).toMatchObject({ agents: [b1], starts_at: later, replacement: null });
  await stop(clientId);
});

test.concurrent('an agent deleted meanwhile is skipped: the next agent in the list takes its period, and the rotation says why', async () => {
  const { clientId, agents } = await clientWithAgents(stack, token, 3);
  const [a1, a2, a3] = agents;
  // Periods of 2 s, as the new rotations' above; starts_at in the past sets the phase: a2's first period
  // begins 1.5 s after the PUT.
  const period = 2000;
  const cycle = 3 * period;
  const first = await put(clientId, { agents, period: '2s', starts_at: new Date(Date.now() + 1500 - period).toISOString() });
  const startsAt = first.body.starts_at as string;
  await stack.prisma.agent.deleteMany({ where: { business: stack.business, id: a2 } });

  // a2's first period after the deletion is skipped: the one from 1.5 s, or on a machine slow enough for the
  // deletion to come after that boundary, a2's next one (every cycle of 6 s). Either way a3 holds it.
  const view = await eventually(async () => {
    const res = await stack.api('GET', `/clients/${clientId}/rotation`, { token });
    return res.body.skipped.length > 0 && res.body.current ? res.body : undefined;
  }, 20_000);
  const skippedFrom = view.skipped[0].from as string;
  expect((Date.parse(skippedFrom) - Date.parse(startsAt)) % cycle).toBe(period);
  expect(view.skipped).toEqual([
    { from: skippedFrom, until: plusMs(skippedFrom, period), agent: a2, position: 2, reason: `Agent ${a2} not found or not authorized` },
  ]);
  // a3 has the skipped period, and its own after it: the view is read in one or the other.
  const a3Periods = [0, period].map((ms) => ({ agent: a3, position: 3, of: 3, from: plusMs(skippedFrom, ms), until: plusMs(skippedFrom, ms + period) }));
  expect(a3Periods).toContainEqual(view.current);

  // Then a1's period again, handed out at its boundary: on a loaded machine a moment after it, so the
  // check waits for it rather than for a fixed instant.
  await sleep(Date.parse(skippedFrom) + 2 * period - Date.now());
  const made = await eventually(async () => {
    const rows = await rotationAssignments(stack, token, clientId);
    return rows.at(-1)?.dt_until === plusMs(skippedFrom, 3 * period) ? rows : undefined;
  }, 10_000);
  expect(made.map((p) => p.agent)).not.toContain(a2);
  expect(made[0]).toMatchObject({ agent: a1, dt_until: plusMs(startsAt, period) });
  expect(made.filter((p) => p.agent === a3).map((p) => p.dt_until).pop()).toBe(plusMs(skippedFrom, 2 * period));
  expect(made[made.length - 1]).toMatchObject({ agent: a1, dt_until: plusMs(skippedFrom, 3 * period) });
  await stop(clientId);
});
