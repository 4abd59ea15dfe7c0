import { Worker } from '@temporalio/worker';
import { clientWorkflowId, describeRotationStep, type ClientRunState } from '../../../src/domain';
import { eventually } from '../../support/helpers';
import { temporalTextOf } from '../../support/history';
import { clientInRotation, plusMs, rotationAssignments, startRotationStack } from '../../support/rotation';
import type { TestStack } from '../../support/stack';

/*
 * A rotation on the real dev server with periods of a couple of seconds: each period is an ordinary
 * assignment of the next agent, ending where the next period begins. Each test owns its client and
 * agents, and waits on its own boundaries: they run side by side (`test.concurrent`, docs/design.md
 * "Suite: concurrent tests inside a file").
 */

const PERIOD_MS = 2000;
let stack: TestStack;
let token: string;

beforeAll(async () => ({ stack, token } = await startRotationStack('rota-lead@example.com')));
afterAll(() => stack.stop());

test.concurrent('agents take the periods in order, cycling, each assignment ending exactly where the next period begins', async () => {
  const { clientId, agents, put, startsAt } = await clientInRotation(stack, token, 3, { period: '2s', ds_notes: 'on-call' });
  expect(put.status).toBe(201);
  expect(put.body).toMatchObject({
    client: clientId,
    status: 'active',
    agents,
    period: '2s',
    period_ms: PERIOD_MS,
    ds_notes: 'on-call',
    current: { agent: agents[0], position: 1, of: 3, from: startsAt, until: plusMs(startsAt, PERIOD_MS) },
    next: { agent: agents[1], position: 2, of: 3, from: plusMs(startsAt, PERIOD_MS) },
    next_change_at: plusMs(startsAt, PERIOD_MS),
    replacement: null,
    skipped: [],
    version: 1,
  });

  const periods = await eventually(async () => {
    const made = await rotationAssignments(stack, token, clientId);
    return made.length >= 5 ? made : undefined;
  }, 20_000);
  expect(periods.slice(0, 5).map((p) => p.agent)).toEqual([agents[0], agents[1], agents[2], agents[0], agents[1]]);
  periods.slice(0, 5).forEach((period, k) => {
    // Period k ends at starts_at + (k+1)·period, which is where period k+1 begins: no gap, no overlap.
    expect(period.dt_until).toBe(plusMs(startsAt, (k + 1) * PERIOD_MS));
    expect(period).toMatchObject({ rotation: true, ds_notes: 'on-call' });
  });
  // Agent 1's first period expired at its end; its second is a new assignment.
  await eventually(async () => (await rotationAssignments(stack, token, clientId))[0].status === 'expired');
  const [first] = await rotationAssignments(stack, token, clientId);
  expect(Date.parse(first.ended_at!)).toBeGreaterThanOrEqual(Date.parse(first.dt_until));
  // At most one rotation assignment is active at a time.
  const active = await stack.api('GET', `/clients/${clientId}/agents`, { token });
  expect(active.body.assignments.filter((a: { rotation: boolean }) => a.rotation).length).toBeLessThanOrEqual(2);

  const view = await stack.api('GET', `/clients/${clientId}/rotation`, { token });
  expect(view.status).toBe(200);
  const k = Math.round((Date.parse(view.body.next_change_at) - Date.parse(startsAt)) / PERIOD_MS) - 1;
  expect(view.body.current).toMatchObject({ agent: agents[k % 3], position: (k % 3) + 1, until: view.body.next_change_at });
  expect(view.body.next).toMatchObject({ agent: agents[(k + 1) % 3], position: ((k + 1) % 3) + 1, from: view.body.next_change_at });

  // The client's run held every boundary; its history replays on today's workflow code (see "Changing workflow code").
  const bundle = { workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } };
  await Worker.runReplayHistory(bundle, await stack.temporal.workflow.getHandle(put.body.workflow_id).fetchHistory(), put.body.workflow_id);

  await stack.api('DELETE', `/clients/${clientId}/rotation`, { token });
});

test.concurrent('the clock is the client\'s run, named by ids, and names the current and next agent like the assignments do', async () => {
  const { clientId, agents, put } = await clientInRotation(stack, token, 2, { period: '1m', ds_notes: 'Call Ada on +1 415 555 0199' });
  expect(put.status).toBe(201);
  const client = await stack.prisma.client.findFirstOrThrow({ where: { business: stack.business, id: clientId } });
  const row = await stack.prisma.rotation.findFirstOrThrow({ where: { clientPk: client.pk } });
  const workflowId = clientWorkflowId({ business: stack.business, clientId, clientPk: client.pk });
  expect(put.body.workflow_id).toBe(workflowId);
  expect(workflowId).toMatch(/^client\/[^/]+\/[^/]+\/[0-9a-f-]{36}$/);

  const handle = stack.temporal.workflow.getHandle(workflowId);
  const described = await handle.describe();
  expect(described.status.name).toBe('RUNNING');
  const [rotation] = (await handle.query<ClientRunState>('state')).rotations;
  expect(rotation).toMatchObject({ rotationKey: row.key, state: 'active', current: { agent: agents[0], position: 1, of: 2 }, next: { agent: agents[1], position: 2, of: 2 } });
  expect(describeRotationStep(rotation)).toBe(`Rotation: ${agents[0]} (agent 1 of 2) until ${rotation.current!.until}; next change at ${rotation.nextChangeAt} to ${agents[1]} (agent 2 of 2)`);
  // What the UI shows of a run beside its summary. Agent ids are the business's own keys: the assignments' workflow ids and AgentIds search attribute carry them too.
  const metadata = await eventually(async () => {
    const shown = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    return String(shown.currentDetails).includes(describeRotationStep(rotation)) ? shown : undefined;
  });
  const inTemporal = [await temporalTextOf(stack.temporal, workflowId), metadata.currentDetails].join('\n');
  for (const secret of ['rota-lead', 'example.com', 'Call Ada', '415 555 0199']) expect(inTemporal).not.toContain(secret);

  // A second PUT of the same rotation changes nothing and keeps the one workflow.
  const again = await stack.api('PUT', `/clients/${clientId}/rotation`, { token, body: { agents, period: '1m', ds_notes: 'Call Ada on +1 415 555 0199' } });
  expect(again.status).toBe(200);
  expect(again.body).toEqual(put.body);
  expect((await handle.describe()).runId).toBe(described.runId);
  await stack.api('DELETE', `/clients/${clientId}/rotation`, { token });
});

test.concurrent('DELETE stops the rotation: the period in progress runs to its dt_until, and no further one is handed out', async () => {
  const { clientId, agents, put } = await clientInRotation(stack, token, 2, { period: '3s' });
  expect(put.body.current).toMatchObject({ agent: agents[0] });
  const stopped = await stack.api('DELETE', `/clients/${clientId}/rotation`, { token });
  expect(stopped.status).toBe(200);
  expect(stopped.body).toMatchObject({ status: 'stopped', current: put.body.current, next: null, next_change_at: null, stopped_at: expect.any(String), version: 2 });
  expect(stopped.body.stopped_by).toEqual({ actor: 'user', reason: 'api' });
  expect(put.body.stopped_by).toBeNull();

  // The client's run drops the rotation's clock; it keeps the assignment's.
  const handle = stack.temporal.workflow.getHandle(put.body.workflow_id);
  await eventually(async () => ((await handle.query<ClientRunState>('state')).rotations.length === 0 ? true : undefined));
  const [inProgress] = await rotationAssignments(stack, token, clientId);
  expect(inProgress).toMatchObject({ agent: agents[0], status: 'active', dt_until: put.body.current.until });

  // The run ends idle once that assignment expired: with the clock's run over, nothing further can be handed
  // out, so the check reads the rows then rather than after a fixed wait past dt_until.
  await expect(handle.result()).resolves.toEqual({ outcome: 'idle' });
  expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(put.body.current.until));
  const after = await rotationAssignments(stack, token, clientId);
  expect(after).toEqual([expect.objectContaining({ agent: agents[0], status: 'expired', dt_until: put.body.current.until })]);
  const view = await stack.api('GET', `/clients/${clientId}/rotation`, { token });
  expect(view.body).toMatchObject({ status: 'stopped', current: null, next: null });

  const again = await stack.api('DELETE', `/clients/${clientId}/rotation`, { token });
  expect(again.status).toBe(404);
  expect(again.body.detail).toBe('No active rotation on this client');
  // The stop is an event like every other change, once: the rotation as the DELETE answered it.
  const feed = await stack.api('GET', `/events?client=${clientId}&type=rotation.*`, { token });
  expect(feed.body.events).toEqual([expect.objectContaining({ type: 'rotation.stopped', data: { ...stopped.body, reason: 'api' } })]);
});

test.concurrent('a list of one agent: each boundary extends the same assignment with one assignment.updated; it never expires and comes back', async () => {
  const { clientId, agents, put, startsAt } = await clientInRotation(stack, token, 1, { period: '2s' });
  expect(put.status).toBe(201);
  // Two boundaries passed: the assignment now runs to the end of the third period.
  await eventually(async () => {
    const view = await stack.api('GET', `/clients/${clientId}/rotation`, { token });
    return Date.parse(view.body.current?.until ?? 0) >= Date.parse(plusMs(startsAt, 3 * PERIOD_MS));
  }, 20_000);
  await stack.api('DELETE', `/clients/${clientId}/rotation`, { token });

  const [only, ...others] = await rotationAssignments(stack, token, clientId);
  expect(others).toEqual([]);
  expect(only).toMatchObject({ agent: agents[0], status: 'active', ended_at: null });
  expect(Date.parse(only.dt_until)).toBeGreaterThanOrEqual(Date.parse(plusMs(startsAt, 3 * PERIOD_MS)));
  const feed = await stack.api('GET', `/events?client=${clientId}&type=assignment.*`, { token });
  const changes = feed.body.events.map((e: any) => [e.type, e.data.dt_until, e.data.reason]);
  expect(changes.slice(0, 3)).toEqual([
    ['assignment.created', plusMs(startsAt, PERIOD_MS), 'rule'],
    ['assignment.updated', plusMs(startsAt, 2 * PERIOD_MS), 'rule'],
    ['assignment.updated', plusMs(startsAt, 3 * PERIOD_MS), 'rule'],
  ]);
  expect(changes.map(([type]: string[]) => type)).not.toContain('assignment.expired');
  // The client's run started for the first period is the one that holds the clock, re-armed to the new dt_until.
  const expiry = stack.temporal.workflow.getHandle(only.workflow_id);
  expect((await expiry.describe()).startTime.getTime()).toBeLessThan(Date.parse(plusMs(startsAt, PERIOD_MS)));
  await eventually(async () => (await expiry.query<ClientRunState>('state')).assignments[0]?.dtUntil === only.dt_until);
});
