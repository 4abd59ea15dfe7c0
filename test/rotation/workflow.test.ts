import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { createActivities } from '../../src/activities';
import { nextChange, type Schedule } from '../../src/domain/rotation-schedule';
import { rotationAppliedUpdate, rotationChangedSignal, type AdvanceRotationInput, type RotationStep } from '../../src/domain';
import { createTimeSkippingEnvironment } from '../support/helpers';

type Activities = ReturnType<typeof createActivities>;

/*
 * The rotation workflow alone on the time-skipping server, its step replaced by a fake that keeps the
 * schedule in memory with the project's own arithmetic: hundreds of periods pass in moments.
 */
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await createTimeSkippingEnvironment();
});
afterAll(() => env?.teardown());

const DAY = 86_400_000;

/** A rotation row in memory: hands out what is due at the step's clock, stops after `periods`. */
function fakeRotation(schedule: Schedule, periods: number) {
  const row = { coveredUntil: null as Date | null, version: 1, stopped: false };
  const handedOut: { position: number; start: string; end: string; asOf: string }[] = [];
  let steps = 0;
  const advanceRotation = async ({ asOf }: AdvanceRotationInput): Promise<RotationStep> => {
    steps++;
    const now = new Date(asOf);
    if (row.stopped || handedOut.length >= periods) return { state: 'ended', version: row.version, nextChangeAt: null, current: null, next: null };
    for (let change = nextChange({ schedule, pending: null, coveredUntil: row.coveredUntil }); change.at <= now; change = nextChange({ schedule, pending: null, coveredUntil: row.coveredUntil })) {
      handedOut.push({ position: change.segment.position, start: change.at.toISOString(), end: change.segment.end.toISOString(), asOf });
      row.coveredUntil = change.segment.end;
    }
    const next = nextChange({ schedule, pending: null, coveredUntil: row.coveredUntil });
    return {
      state: 'active',
      version: row.version,
      nextChangeAt: next.at.toISOString(),
      current: { position: handedOut[handedOut.length - 1].position + 1, of: schedule.agentIds.length, until: next.at.toISOString() },
      next: { position: next.segment.position + 1, of: schedule.agentIds.length },
    };
  };
  return { row, handedOut, steps: () => steps, activities: { advanceRotation, stopRotationByOperator: async () => true } as Partial<Activities> };
}

async function withWorker<T>(activities: Partial<Activities>, body: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `rotation-${randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! }, activities });
  return worker.runUntil(body(taskQueue));
}

const start = (taskQueue: string) =>
  env.client.workflow.start('rotation', {
    workflowId: `rotation/test/${randomUUID()}/${randomUUID()}`,
    taskQueue,
    args: [{ business: 'test', clientPk: randomUUID(), rotationKey: randomUUID() }],
  });

test('hundreds of periods: one step at each boundary, each at the boundary itself, a new run per period', async () => {
  const startsAt = new Date(await env.currentTimeMs());
  const schedule: Schedule = { agentIds: ['a1', 'a2', 'a3'], period: 'P1D', periodMs: DAY, startsAt, effectiveAt: startsAt, notes: null };
  const fake = fakeRotation(schedule, 300);
  await withWorker(fake.activities, async (taskQueue) => {
    const handle = await start(taskQueue);
    expect(await handle.result()).toEqual({ outcome: 'stopped' });
    const first = await env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');
    // The last run is short: its history holds one step and one timer, not the whole rotation.
    expect((await handle.fetchHistory()).events!.length).toBeLessThan(30);
  });
  expect(fake.handedOut).toHaveLength(300);
  fake.handedOut.forEach((period, k) => {
    expect(period.start).toBe(new Date(startsAt.getTime() + k * DAY).toISOString());
    expect(period.end).toBe(new Date(startsAt.getTime() + (k + 1) * DAY).toISOString());
    expect(period.position).toBe(k % 3);
    // Woken at the boundary (within a minute of a day-long period: the skipping clock runs on while a
    // loaded machine works), not a period late: each step hands out exactly one period.
    expect(Date.parse(period.asOf) - Date.parse(period.start)).toBeLessThan(60_000);
  });
  // One step per period, plus the last one that finds the rotation over.
  expect(fake.steps()).toBe(301);
});

test('a PUT\'s update is answered once the step has applied its version; a stop ends the run', async () => {
  const startsAt = new Date(await env.currentTimeMs());
  const schedule: Schedule = { agentIds: ['a1', 'a2'], period: 'P7D', periodMs: 7 * DAY, startsAt, effectiveAt: startsAt, notes: null };
  const fake = fakeRotation(schedule, 1000);
  await withWorker(fake.activities, async (taskQueue) => {
    const handle = await start(taskQueue);
    const applied = await handle.executeUpdate(rotationAppliedUpdate, { args: [1] });
    expect(applied).toMatchObject({ state: 'active', version: 1, current: { position: 1, of: 2 }, next: { position: 2, of: 2 } });

    fake.row.version = 2;
    const second = await handle.executeUpdate(rotationAppliedUpdate, { args: [2] });
    expect(second.version).toBe(2);

    fake.row.stopped = true;
    fake.row.version = 3;
    await handle.signal(rotationChangedSignal);
    expect(await handle.result()).toEqual({ outcome: 'stopped' });
  });
  expect(fake.handedOut).toHaveLength(1);
});
