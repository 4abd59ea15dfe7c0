import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { createActivities } from '../../src/activities';
import { createTimeSkippingEnvironment } from '../support/helpers';
import { nextSleepMs } from '../../src/workflows/timers';
import { attemptsWithin, RECORDING_STEP_OPTIONS } from '../../src/workflows/retry-budget';
import { RequestFailureType, MAX_TIMER_CHUNK_MS, type AssignmentExpiryInput, type ExpiryCheck } from '../../src/domain';

type Activities = ReturnType<typeof createActivities>;

/*
 * Workflow logic alone, with activities replaced by fakes, on the time-skipping test server: a wait
 * of months or a century passes in moments.
 */
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await createTimeSkippingEnvironment();
});
afterAll(() => env?.teardown());

const DAY = 24 * 60 * 60 * 1000;

function expiryInput(dtUntil: Date): AssignmentExpiryInput {
  return { business: 'acme', ownerId: 'u1', clientId: 'c1', agentId: 'a1', clientPk: randomUUID(), agentPk: randomUUID(), dtUntil: dtUntil.toISOString() };
}

/** A fake assignment table row: expires when the (skipped) clock passes its date. */
function fakeAssignment(dtUntil: Date) {
  const row = { dtUntil, status: 'active' as 'active' | 'expired' | 'unassigned' };
  const calls = { expire: 0, load: 0 };
  const activities: Partial<Activities> = {
    async expireAssignmentIfDue(): Promise<ExpiryCheck> {
      calls.expire++;
      if (row.status !== 'active') return { status: 'none' };
      if (row.dtUntil.getTime() <= (await env.currentTimeMs())) {
        row.status = 'expired';
        return { status: 'expired' };
      }
      return { status: 'active', dtUntil: row.dtUntil.toISOString() };
    },
    async loadActiveAssignment() {
      calls.load++;
      return row.status === 'active' ? { dtUntil: row.dtUntil.toISOString() } : null;
    },
  };
  return { row, calls, activities };
}

function startExpiry(taskQueue: string, dtUntil: Date) {
  return env.client.workflow.start('assignmentExpiry', { workflowId: `assignment-${randomUUID()}`, taskQueue, args: [expiryInput(dtUntil)] });
}

async function withWorker<T>(activities: Partial<Activities>, body: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `wf-${randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    activities,
  });
  return worker.runUntil(body(taskQueue));
}

test('waits for a date months away in bounded chunks, continuing as new between them, then expires it', async () => {
  const dtUntil = new Date((await env.currentTimeMs()) + 200 * DAY);
  const fake = fakeAssignment(dtUntil);
  await withWorker(fake.activities, async (taskQueue) => {
    const handle = await startExpiry(taskQueue, dtUntil);
    expect(await handle.result()).toEqual({ outcome: 'expired' });
    expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(dtUntil.getTime());
    const firstRun = await env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
    expect(firstRun.status.name).toBe('CONTINUED_AS_NEW');
  });
  expect(fake.row.status).toBe('expired');
  expect(fake.calls.expire).toBe(1);
});

/** The latest run's state; its `nextWakeAt` is when its one timer fires. */
const stateOf = (workflowId: string) => env.client.workflow.getHandle(workflowId).query<{ dtUntil: string; nextWakeAt: string }>('state');

/*
 * Past the server's 100-year timer cap: no run asks for a timer longer than a chunk, each continues as new
 * with the same date, and the run that starts within a chunk or two of the date expires it. The chain
 * between (about 1,400 runs to 2143) is the same step again: the clock is moved there while no run waits.
 */
test('expires an assignment at the default date of 2143-06-23, past the server\'s 100-year timer cap', async () => {
  const dtUntil = new Date('2143-06-23T00:00:00.000Z');
  const fake = fakeAssignment(dtUntil);
  await withWorker(fake.activities, async (taskQueue) => {
    const first = await startExpiry(taskQueue, dtUntil);
    const firstWake = Date.parse((await stateOf(first.workflowId)).nextWakeAt);
    expect(firstWake - (await env.currentTimeMs())).toBeLessThanOrEqual(MAX_TIMER_CHUNK_MS);
    // One chunk later (the second run's wake is at least a chunk less a day of jitter after the first's).
    await env.sleep(MAX_TIMER_CHUNK_MS);
    expect((await env.client.workflow.getHandle(first.workflowId, first.firstExecutionRunId).describe()).status.name).toBe('CONTINUED_AS_NEW');
    const second = await stateOf(first.workflowId);
    expect(second.dtUntil).toBe(dtUntil.toISOString());
    expect(Date.parse(second.nextWakeAt) - firstWake).toBeLessThanOrEqual(MAX_TIMER_CHUNK_MS);
    await first.terminate('the chain to 2143 is the same step again');

    await env.sleep(dtUntil.getTime() - 45 * DAY - (await env.currentTimeMs()));
    const last = await startExpiry(taskQueue, dtUntil);
    expect(await last.result()).toEqual({ outcome: 'expired' });
    expect((await env.client.workflow.getHandle(last.workflowId, last.firstExecutionRunId).describe()).status.name).toBe('CONTINUED_AS_NEW');
  });
  expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(dtUntil.getTime());
  expect(fake.row.status).toBe('expired');
  expect(fake.calls.expire).toBe(1);
});

test('a chunk never exceeds the longest timer, whatever the distance', async () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  expect(nextSleepMs(Date.parse('2143-06-23T00:00:00Z'), now)).toEqual({ sleepMs: MAX_TIMER_CHUNK_MS, reachesDeadline: false });
  expect(nextSleepMs(now + 5000, now)).toEqual({ sleepMs: 5000, reachesDeadline: true });
  expect(nextSleepMs(now - 5000, now)).toEqual({ sleepMs: 0, reachesDeadline: true });
});

test('a change signal makes it re-read the assignment and wait for the new date', async () => {
  const start = await env.currentTimeMs();
  const fake = fakeAssignment(new Date(start + 10 * DAY));
  await withWorker(fake.activities, async (taskQueue) => {
    const handle = await startExpiry(taskQueue, fake.row.dtUntil);
    fake.row.dtUntil = new Date(start + 20 * DAY);
    await handle.signal('assignmentChanged');
    await env.sleep(DAY);
    expect((await handle.query<{ dtUntil: string }>('state')).dtUntil).toBe(fake.row.dtUntil.toISOString());
    expect(await handle.result()).toEqual({ outcome: 'expired' });
    expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(start + 20 * DAY);
  });
  expect(fake.calls.load).toBe(1);
});

test('ends without expiring anything when the assignment was unassigned', async () => {
  const fake = fakeAssignment(new Date((await env.currentTimeMs()) + 10 * DAY));
  await withWorker(fake.activities, async (taskQueue) => {
    const handle = await startExpiry(taskQueue, fake.row.dtUntil);
    fake.row.status = 'unassigned';
    await handle.signal('assignmentChanged');
    expect(await handle.result()).toEqual({ outcome: 'ended' });
  });
  expect(fake.calls.expire).toBe(0);
  expect(fake.row.status).toBe('unassigned');
});

test('assignAgents fails with the business failure and schedules nothing when an agent is not the caller\'s', async () => {
  let scheduled = 0;
  const activities: Partial<Activities> = {
    async recordAssignments() {
      throw ApplicationFailure.create({ type: RequestFailureType.AgentNotAuthorized, message: 'Agent a2 not found or not authorized', nonRetryable: true });
    },
    async scheduleAssignmentExpiries() {
      scheduled++;
    },
  };
  await withWorker(activities, async (taskQueue) => {
    const run = env.client.workflow.execute('assignAgents', {
      workflowId: `assign-${randomUUID()}`,
      taskQueue,
      args: [{ business: 'acme', ownerId: 'u1', clientId: 'c1', agents: [{ agentId: 'a2', dtUntil: '2143-06-23T00:00:00.000Z' }], notes: null }],
    });
    const error = await run.catch((e) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    let failure: unknown = error;
    while (failure && !(failure instanceof ApplicationFailure)) failure = (failure as Error).cause;
    if (!(failure instanceof ApplicationFailure)) throw new Error(`no ApplicationFailure in ${error}`);
    expect(failure.type).toBe(RequestFailureType.AgentNotAuthorized);
    expect(failure.message).toBe('Agent a2 not found or not authorized');
  });
  expect(scheduled).toBe(0);
});

/*
 * A local activity's retries wait in the worker, in real time, not on the server's skipped clock: the
 * failure names a short delay for each retry (Temporal's nextRetryDelay), so the run proves the attempt
 * count in moments; that the policy's own waits add up to 30 s is the next test's table.
 */
test('assignAgents stops retrying a recording step that keeps failing once its 30 s of retries are spent', async () => {
  const attempts: { attempt: number; scheduleToCloseMs: number | undefined }[] = [];
  const activities: Partial<Activities> = {
    async recordAssignments() {
      const { attempt, scheduleToCloseTimeoutMs } = Context.current().info;
      attempts.push({ attempt, scheduleToCloseMs: scheduleToCloseTimeoutMs });
      throw ApplicationFailure.create({ message: 'the database keeps failing', nextRetryDelay: 10 });
    },
    async scheduleAssignmentExpiries() {},
  };
  await withWorker(activities, async (taskQueue) => {
    const error = await env.client.workflow
      .execute('assignAgents', {
        workflowId: `assign-${randomUUID()}`,
        taskQueue,
        args: [{ business: 'acme', clientId: 'c1', agents: [{ agentId: 'a1', dtUntil: '2143-06-23T00:00:00.000Z' }] }],
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    // A local activity's last failure ends the run unwrapped, still marked retryable.
    expect(error.cause).toBeInstanceOf(ApplicationFailure);
    expect(error.cause.message).toBe('the database keeps failing');
    expect(error.cause.nonRetryable).toBe(false);
  });
  expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  expect(new Set(attempts.map((a) => a.scheduleToCloseMs))).toEqual(new Set([30_000]));
});

test('the recording step retries as long as its 30 s budget: 200 ms doubling to at most 5 s, ten attempts', () => {
  expect(RECORDING_STEP_OPTIONS).toEqual(
    expect.objectContaining({
      scheduleToCloseTimeout: '30 seconds',
      retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 10 },
    }),
  );
});

test('attemptsWithin counts the attempts whose waits fit the budget', () => {
  expect(attemptsWithin(30_000, { initialMs: 200, coefficient: 2, maximumMs: 5000 })).toBe(10);
  expect(attemptsWithin(0, { initialMs: 200, coefficient: 2, maximumMs: 5000 })).toBe(1);
  expect(attemptsWithin(1000, { initialMs: 1000, coefficient: 2, maximumMs: 5000 })).toBe(2);
});
