import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, WorkflowUpdateFailedError, type WorkflowHandle, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createClientClockActivities } from '../../src/activities/assignments/client-clocks';
import {
  applyRotationUpdate,
  assignUpdate,
  CLIENT_WORKFLOW,
  clientRunStateQuery,
  clocksChangedSignal,
  MAX_TIMER_CHUNK_MS,
  RequestFailureType,
  type AssignmentClock,
  type AssignRequestOutcome,
  type AssignUpdateInput,
  type ClientRunInput,
  type ConversationClock,
  type FirstResponseClock,
  type RotationClock,
} from '../../src/domain';
import { CHUNK_JITTER_MS } from '../../src/domain/timer-chunks';
import { createTimeSkippingEnvironment } from '../support/helpers';

/*
 * The client's run alone (src/workflows/assignments/client-ownership.ts), its local activities replaced by a client's
 * rows in memory, on the time-skipping test server: every branch of its loop — expiry at dt_until, timer
 * chunks and continue-as-new, an operator's cancel, a burst of requests, a re-read on a signal, rotations'
 * boundaries, first-response and conversation clocks — in seconds, without a database.
 */

let env: TestWorkflowEnvironment;
/**
 * The calls a test that timed out still has out are cancelled, and its worker stopped, before the server
 * goes: the client retries a call the stopped server failed on a timer, which then throws on the closed
 * channel in whichever file this jest worker runs next (docs/design.md, "Test levels for workflows").
 */
const fileDone = new AbortController();
const bodies = new Set<Promise<unknown>>();
beforeAll(async () => {
  env = await createTimeSkippingEnvironment();
});
afterAll(async () => {
  fileDone.abort();
  await Promise.allSettled(bodies);
  await env?.teardown();
});

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

/** A client's rows as its run's steps see them, and every step the run took, with the (skipped) time it took it at. */
class FakeClient {
  readonly assignments = new Map<string, number>();
  firstResponses: FirstResponseClock[] = [];
  /** An agent a due first-response clock hands the client to. */
  reassignTo: { agentId: string; dtUntil: number } | null = null;
  /** Each hands its next period to the next of `agents` until it has no period left. */
  rotations: (RotationClock & { agents: string[]; periodMs: number; periodsLeft: number })[] = [];
  conversations: ConversationClock[] = [];
  /** Expiries the database's clock, behind the worker's, does not see due yet. */
  expiriesBehind = 0;
  readonly steps: { step: string; at: number }[] = [];
  /** While set, a recording step waits for it (a slow transaction). */
  recordingHeld: Promise<void> | null = null;
  readonly recordedBatches: number[] = [];

  clocks(): AssignmentClock[] {
    return [...this.assignments].sort(([, a], [, b]) => a - b).map(([agentId, dtUntil]) => ({ agentId, agentPk: `pk-${agentId}`, dtUntil: iso(dtUntil) }));
  }

  stepsNamed(step: string) {
    return this.steps.filter((s) => s.step === step);
  }

  activities() {
    const unlogged = {
      loadClientClocks: async () => this.clocks(),
      advanceClientRotations: async ({ asOf }: { asOf: string }) => this.advanceRotations(Date.parse(asOf)),
      stepFirstResponses: async () => this.stepFirstResponses(await env.currentTimeMs()),
      stepConversations: async () => this.stepConversations(await env.currentTimeMs()),
    };
    const logged = <A extends unknown[], R>(step: string, run: (...args: A) => Promise<R>) => async (...args: A) => {
      this.steps.push({ step, at: await env.currentTimeMs() });
      return run(...args);
    };
    const { readClientClocks } = createClientClockActivities(unlogged);
    return {
      readClientClocks: logged('read', readClientClocks),
      loadClientClocks: logged('load', unlogged.loadClientClocks),
      advanceClientRotations: logged('rotations', unlogged.advanceClientRotations),
      stepFirstResponses: logged('firstResponses', unlogged.stepFirstResponses),
      stepConversations: logged('conversations', unlogged.stepConversations),
      expireDueAssignments: logged('expire', async () => this.expire(await env.currentTimeMs())),
      recordAssignmentRequests: logged('record', async ({ requests }: { requests: AssignUpdateInput[] }) => {
        this.recordedBatches.push(requests.length);
        await this.recordingHeld;
        return { outcomes: requests.map((r) => this.record(r)), clocks: this.clocks() };
      }),
    };
  }

  private record(request: AssignUpdateInput): AssignRequestOutcome {
    const stranger = request.agents.find((a) => a.agentId.startsWith('stranger'));
    if (stranger) return { ok: false, type: RequestFailureType.AgentNotAuthorized, message: `Agent ${stranger.agentId} not found or not authorized` };
    for (const { agentId, dtUntil } of request.agents) this.assignments.set(agentId, Date.parse(dtUntil));
    const workflowId = 'client/acme/c1';
    const expiry = (agentId: string, dtUntil: string) => ({ business: 'acme', ownerId: 'u1', clientId: 'c1', agentId, clientPk: 'pk-c1', agentPk: `pk-${agentId}`, dtUntil });
    return { ok: true, assignments: request.agents.map(({ agentId, dtUntil }) => ({ agentId, dtUntil, workflowId, expiry: expiry(agentId, dtUntil) })) };
  }

  private expire(nowMs: number): AssignmentClock[] {
    if (this.expiriesBehind > 0) this.expiriesBehind--;
    else for (const [agentId, dtUntil] of this.assignments) if (dtUntil <= nowMs) this.assignments.delete(agentId);
    return this.clocks();
  }

  /** A rotation at its boundary hands the next period to its next agent, until it has no period left. */
  private advanceRotations(asOfMs: number): RotationClock[] {
    for (const rotation of this.rotations) {
      if (rotation.state !== 'active' || Date.parse(rotation.nextChangeAt!) > asOfMs) continue;
      const boundary = Date.parse(rotation.nextChangeAt!);
      rotation.version++;
      if (--rotation.periodsLeft === 0) Object.assign(rotation, { state: 'ended', nextChangeAt: null });
      else {
        this.assignments.set(rotation.agents.shift()!, boundary + rotation.periodMs);
        rotation.nextChangeAt = iso(boundary + rotation.periodMs);
      }
    }
    return this.rotations.map(({ agents: _a, periodMs: _p, periodsLeft: _l, ...clock }) => clock);
  }

  private stepFirstResponses(nowMs: number) {
    const due = this.firstResponses.filter((c) => c.dueAt !== null && Date.parse(c.dueAt) <= nowMs);
    this.firstResponses = this.firstResponses.filter((c) => !due.includes(c));
    if (due.length > 0 && this.reassignTo) this.assignments.set(this.reassignTo.agentId, this.reassignTo.dtUntil);
    return { clocks: this.firstResponses, reassigned: due.length > 0 && this.reassignTo !== null };
  }

  private stepConversations(nowMs: number) {
    this.conversations = this.conversations.filter((c) => c.dueAt === null || Date.parse(c.dueAt) > nowMs);
    return this.conversations;
  }
}

async function withWorker<T>(fake: FakeClient, body: (start: (input?: Partial<ClientRunInput>) => Promise<WorkflowHandleWithFirstExecutionRunId>) => Promise<T>): Promise<T> {
  const taskQueue = `client-run-${randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! }, activities: fake.activities() });
  const start = (input: Partial<ClientRunInput> = {}) =>
    env.client.workflow.start(CLIENT_WORKFLOW, { workflowId: `client/acme/c1/${randomUUID()}`, taskQueue, args: [{ business: 'acme', clientId: 'c1', clientPk: randomUUID(), ...input }] });
  const run = env.client.withAbortSignal(fileDone.signal, () => worker.runUntil(body(start)));
  bodies.add(run);
  return run.finally(() => bodies.delete(run));
}

/** `test`'s value once it has one, looked for every 20 ms of real time for 10 s (the test server's time stands still meanwhile). */
async function until<T>(test: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20))) {
    const value = await test();
    if (value !== undefined) return value;
  }
  throw new Error(`not within 10 s: ${test}`);
}

const { EventType } = temporal.api.enums.v1;
const TASK_EVENTS = new Set([
  EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
]);

/**
 * Terminates the run once its last workflow task is completed. The test server holds time still while a
 * workflow task is out and lets it go when the task completes; a run terminated under one never
 * completes it, and time stays held for the rest of the file: every later wait on skipped time hangs
 * (docs/design.md, "Test levels for workflows"). Outside `result()` and `env.sleep` time does not move,
 * so a run settled here stays settled.
 */
async function terminateSettled(handle: WorkflowHandle): Promise<void> {
  await until(async () => {
    const events = (await handle.fetchHistory()).events ?? [];
    const lastTask = events.filter((e) => TASK_EVENTS.has(e.eventType!)).at(-1);
    return lastTask?.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED || undefined;
  });
  await handle.terminate();
}

/** The run's state once its first read is done and it sleeps. */
const stateAfterStart = (fake: FakeClient, handle: WorkflowHandle) =>
  until(async () => {
    const state = fake.steps.length > 0 ? await handle.query(clientRunStateQuery) : undefined;
    return state?.nextWakeAt ? state : undefined;
  });

test('a new run reads every kind of rows in one step, holds one timer at the earliest dt_until, expires each assignment at its own and then ends', async () => {
  const t0 = await env.currentTimeMs();
  const fake = new FakeClient();
  fake.assignments.set('a2', t0 + HOUR).set('a1', t0 + 10 * MIN);
  await withWorker(fake, async (start) => {
    const handle = await start();
    const state = await stateAfterStart(fake, handle);
    expect(state.assignments.map((c) => c.agentId)).toEqual(['a1', 'a2']);
    expect(state.nextWakeAt).toBe(iso(t0 + 10 * MIN));
    expect(await handle.result()).toEqual({ outcome: 'idle' });
  });
  expect(fake.steps.map((s) => s.step)).toEqual(['read', 'expire', 'expire']);
  const [first, second] = fake.stepsNamed('expire').map((s) => s.at);
  expect(first - (t0 + 10 * MIN)).toBeGreaterThanOrEqual(0);
  expect(first - (t0 + 10 * MIN)).toBeLessThan(MIN);
  expect(second - (t0 + HOUR)).toBeGreaterThanOrEqual(0);
  expect(second - (t0 + HOUR)).toBeLessThan(MIN);
  expect(fake.assignments.size).toBe(0);
});

test('a client with no clock: the run reads its rows once and ends', async () => {
  const fake = new FakeClient();
  await withWorker(fake, async (start) => expect(await (await start()).result()).toEqual({ outcome: 'idle' }));
  expect(fake.steps.map((s) => s.step)).toEqual(['read']);
});

test('a dt_until 200 days away: timers of one chunk less the run\'s jitter, a new run once the history is long, the expiry at dt_until', async () => {
  const t0 = await env.currentTimeMs();
  const fake = new FakeClient();
  fake.assignments.set('a1', t0 + 200 * DAY);
  await withWorker(fake, async (start) => {
    const handle = await start({ historyLimit: 15 });
    const { nextWakeAt } = await stateAfterStart(fake, handle);
    const chunk = Date.parse(nextWakeAt!) - t0;
    expect(chunk).toBeLessThanOrEqual(MAX_TIMER_CHUNK_MS);
    expect(chunk).toBeGreaterThan(MAX_TIMER_CHUNK_MS - CHUNK_JITTER_MS - MIN);
    expect(await handle.result()).toEqual({ outcome: 'idle' });
    const firstRun = await env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
    expect(firstRun.status.name).toBe('CONTINUED_AS_NEW');
  });
  // Each run re-reads the rows (it carries only the client's keys); one expiry, at dt_until.
  expect(fake.stepsNamed('read').length).toBeGreaterThan(1);
  expect(fake.stepsNamed('expire')).toHaveLength(1);
  expect(fake.stepsNamed('expire')[0].at).toBeGreaterThanOrEqual(t0 + 200 * DAY);
}, 60_000);

test('an operator\'s Request Cancellation stops the run and changes no row (the reconciler starts it again from the rows)', async () => {
  const t0 = await env.currentTimeMs();
  const fake = new FakeClient();
  fake.assignments.set('a1', t0 + DAY);
  await withWorker(fake, async (start) => {
    const handle = await start();
    await stateAfterStart(fake, handle);
    await handle.cancel();
    const error = await handle.result().catch((e) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(error.cause).toBeInstanceOf(CancelledFailure);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
  });
  expect(fake.steps.map((s) => s.step)).toEqual(['read']);
  expect(fake.clocks().map((c) => c.agentId)).toEqual(['a1']);
});

test('a burst of assign requests: each answered with what it recorded, a refused one failed alone, recorded together in few steps, the timer on the rows after them', async () => {
  const t0 = await env.currentTimeMs();
  const fake = new FakeClient();
  fake.assignments.set('anchor', t0 + DAY);
  await withWorker(fake, async (start) => {
    const handle = await start();
    await stateAfterStart(fake, handle);
    const requests = Array.from({ length: 30 }, (_, i) => ({ requestKey: `r${i}`, agents: [{ agentId: i === 7 ? 'stranger' : `a${i % 5}`, dtUntil: iso(t0 + HOUR + i * MIN) }] }));
    const answers = await Promise.all(requests.map((request) => handle.executeUpdate(assignUpdate, { args: [request], updateId: request.requestKey }).catch((e) => e)));
    answers.forEach((answer, i) => {
      if (i !== 7) return expect(answer).toEqual({ client: 'c1', assignments: [{ agent: `a${i % 5}`, dt_until: iso(t0 + HOUR + i * MIN), status: 'active', workflow_id: 'client/acme/c1' }] });
      expect(answer).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(answer.cause).toBeInstanceOf(ApplicationFailure);
      expect(answer.cause).toMatchObject({ type: RequestFailureType.AgentNotAuthorized, message: 'Agent stranger not found or not authorized', nonRetryable: true });
    });
    const state = await handle.query(clientRunStateQuery);
    expect(state.assignments).toEqual(fake.clocks());
    expect(state.nextWakeAt).toBe(fake.clocks()[0].dtUntil);
    await terminateSettled(handle);
  });
  // Requests that queued while one batch was recorded went together; the batch's read stood for a re-read.
  expect(fake.stepsNamed('record').length).toBeLessThan(30);
  expect(fake.stepsNamed('load')).toEqual([]);
});

test('requests that queued while a batch was recorded go together, at most 50 to a step (each step\'s 10 s must hold them)', async () => {
  const t0 = await env.currentTimeMs();
  const fake = new FakeClient();
  fake.assignments.set('anchor', t0 + DAY);
  let release = () => {};
  fake.recordingHeld = new Promise((resolve) => (release = resolve));
  await withWorker(fake, async (start) => {
    const handle = await start();
    await stateAfterStart(fake, handle);
    const assign = (i: number) => handle.executeUpdate(assignUpdate, { args: [{ requestKey: `r${i}`, agents: [{ agentId: `a${i}`, dtUntil: iso(t0 + HOUR + i * MIN) }] }] });
    const first = assign(0);
    await until(() => fake.stepsNamed('record')[0]);
    const queued = Array.from({ length: 60 }, (_, i) => assign(i + 1));
    // The server holds them for the run's next workflow task, which waits on the batch being recorded.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    release();
    await Promise.all([first, ...queued]);
    await terminateSettled(handle);
  });
  // The first request of a workflow task begins a batch of its own; the rest queue behind it (1 1 50 9 here).
  expect(fake.recordedBatches.reduce((a, b) => a + b)).toBe(61);
  expect(Math.max(...fake.recordedBatches)).toBe(50);
  expect(fake.recordedBatches.length).toBeLessThanOrEqual(5);
});

test('a change signalled while a batch is recorded: the run waits for the batch rather than reading beside it, then reads the rows once, since the batch\'s read may predate the change', async () => {
  const t0 = await env.currentTimeMs();
  const fake = new FakeClient();
  fake.assignments.set('anchor', t0 + DAY);
  let release = () => {};
  fake.recordingHeld = new Promise((resolve) => (release = resolve));
  await withWorker(fake, async (start) => {
    const handle = await start();
    await stateAfterStart(fake, handle);
    const answer = handle.executeUpdate(assignUpdate, { args: [{ requestKey: 'r1', agents: [{ agentId: 'a1', dtUntil: iso(t0 + HOUR) }] }] });
    await until(() => fake.stepsNamed('record')[0]);
    // Another path assigned a2 meanwhile, and says so.
    fake.assignments.set('a2', t0 + 2 * HOUR);
    await handle.signal(clocksChangedSignal, ['assignments']);
    release();
    expect(await answer).toMatchObject({ client: 'c1', assignments: [{ agent: 'a1' }] });
    const state = await until(async () => {
      const s = await handle.query(clientRunStateQuery);
      return s.assignments.length === 3 ? s : undefined;
    });
    expect(state.assignments).toEqual(fake.clocks());
    await terminateSettled(handle);
  });
  expect(fake.steps.map((s) => s.step)).toEqual(['read', 'record', 'load']);
});

test('a path that changed the rows signals the run: it re-reads that kind and sets its timer from the rows again', async () => {
  const t0 = await env.currentTimeMs();
  const fake = new FakeClient();
  fake.assignments.set('a1', t0 + HOUR).set('a2', t0 + 2 * HOUR);
  await withWorker(fake, async (start) => {
    const handle = await start();
    await stateAfterStart(fake, handle);
    // a1 unassigned through the API.
    fake.assignments.delete('a1');
    await handle.signal(clocksChangedSignal, ['assignments']);
    expect(await handle.result()).toEqual({ outcome: 'idle' });
  });
  expect(fake.steps.map((s) => s.step)).toEqual(['read', 'load', 'expire']);
  expect(fake.stepsNamed('expire')[0].at).toBeGreaterThanOrEqual(t0 + 2 * HOUR);
});

test('the database\'s clock behind the worker\'s: an expiry that finds nothing due yet is tried again a second later', async () => {
  const t0 = await env.currentTimeMs();
  const fake = new FakeClient();
  fake.assignments.set('a1', t0 + HOUR);
  fake.expiriesBehind = 1;
  await withWorker(fake, async (start) => expect(await (await start()).result()).toEqual({ outcome: 'idle' }));
  const [late, again] = fake.stepsNamed('expire').map((s) => s.at);
  expect(fake.stepsNamed('expire')).toHaveLength(2);
  expect(again - late).toBeGreaterThanOrEqual(1000);
  expect(again - late).toBeLessThan(MIN);
});

test('a rotation\'s boundary: the rotation steps first, the period it handed out is read, then the expiry due at the same instant; a PUT waits for its version', async () => {
  const t0 = await env.currentTimeMs();
  const fake = new FakeClient();
  fake.assignments.set('a1', t0 + HOUR);
  fake.rotations.push({ rotationKey: 'r1', state: 'active', version: 0, nextChangeAt: iso(t0 + HOUR), current: null, next: null, agents: ['a2'], periodMs: HOUR, periodsLeft: 2 });
  await withWorker(fake, async (start) => {
    const handle = await start();
    const state = await stateAfterStart(fake, handle);
    expect(state.rotations.map((r) => r.rotationKey)).toEqual(['r1']);
    expect(state.nextWakeAt).toBe(iso(t0 + HOUR));
    // A PUT of the rotation saved version 1: its answer waits until the run has stepped it.
    fake.rotations[0].version = 1;
    expect(await handle.executeUpdate(applyRotationUpdate, { args: [{ rotationKey: 'r1', version: 1 }] })).toMatchObject({ state: 'active', version: 1 });
    expect(await handle.result()).toEqual({ outcome: 'idle' });
  });
  const boundary = fake.steps.findIndex((s) => s.at >= t0 + HOUR);
  expect(fake.steps.slice(boundary, boundary + 3).map((s) => s.step)).toEqual(['rotations', 'load', 'expire']);
  // The second boundary ends the rotation; the last period's assignment expires at its own dt_until.
  expect(fake.stepsNamed('expire').at(-1)!.at).toBeGreaterThanOrEqual(t0 + 2 * HOUR);
  expect(fake.assignments.size).toBe(0);
});

test('a first response due: the clock is stepped just after its deadline, and a client it moved has its assignments read again', async () => {
  const t0 = await env.currentTimeMs();
  const fake = new FakeClient();
  fake.assignments.set('a1', t0 + DAY);
  fake.firstResponses = [{ decisionId: 'd1', dueAt: iso(t0 + 30 * MIN) }];
  fake.reassignTo = { agentId: 'a3', dtUntil: t0 + 2 * DAY };
  await withWorker(fake, async (start) => {
    const handle = await start();
    expect((await stateAfterStart(fake, handle)).nextWakeAt).toBe(iso(t0 + 30 * MIN + 250));
    await env.sleep(31 * MIN);
    await until(() => fake.stepsNamed('load')[0]);
    const state = await handle.query(clientRunStateQuery);
    expect(state.firstResponses).toEqual([]);
    expect(state.assignments.map((c) => c.agentId)).toEqual(['a1', 'a3']);
    await terminateSettled(handle);
  });
  expect(fake.steps.slice(1, 3).map((s) => s.step)).toEqual(['firstResponses', 'load']);
  expect(fake.stepsNamed('firstResponses')[0].at).toBeGreaterThanOrEqual(t0 + 30 * MIN + 250);
});

test('a snoozed conversation: the run wakes just after the snooze ends, steps the conversations, and ends with no clock left', async () => {
  const t0 = await env.currentTimeMs();
  const fake = new FakeClient();
  fake.conversations = [{ conversationId: 'v1', reason: 'snooze', dueAt: iso(t0 + 20 * MIN) }];
  await withWorker(fake, async (start) => {
    const handle = await start();
    expect((await stateAfterStart(fake, handle)).nextWakeAt).toBe(iso(t0 + 20 * MIN + 250));
    expect(await handle.result()).toEqual({ outcome: 'idle' });
  });
  expect(fake.steps.map((s) => s.step)).toEqual(['read', 'conversations']);
  expect(fake.stepsNamed('conversations')[0].at).toBeGreaterThanOrEqual(t0 + 20 * MIN + 250);
});
