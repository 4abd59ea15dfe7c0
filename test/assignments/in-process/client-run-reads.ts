import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { WorkflowIdConflictPolicy } from '@temporalio/common';
import type { temporal as proto } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { createActivities } from '../../../src/activities';
import {
  assignUpdate,
  CLIENT_WORKFLOW,
  clocksChangedSignal,
  type AssignmentClock,
  type AssignUpdateInput,
  type ClientClocksRead,
  type ClientOwnershipWorkflow,
  type ClientRunState,
  type RecordedAssignRequests,
} from '../../../src/domain';
import { secondsFromNow, tenantApi } from '../../support/client-run';
import { startStackFor, uniqueName, type TestStack } from '../../support/stack';

/*
 * What a client's run reads, and when: a new client's first answer goes out with the run's first
 * workflow task, which waits on every local activity it runs; so the task runs the recording step and
 * at most one read of the client's rows, and a request to an open run runs the recording step alone.
 */

type Activities = ReturnType<typeof createActivities>;
type Event = proto.api.history.v1.IHistoryEvent;

let stack: TestStack;
let token: string;
let connection: NativeConnection;

beforeAll(async () => {
  ({ stack, token } = await startStackFor('owner-1'));
  connection = await NativeConnection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
});
afterAll(async () => {
  await connection?.close();
  await stack.stop();
});

/** A local activity's marker (not a patch's). */
const isMarker = (e: Event) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity';
const isTaskStarted = (e: Event) => !!e.workflowTaskStartedEventAttributes;

/** The local activity a marker of the history records, by its type. */
function localActivityOf(event: Event): string {
  const data = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
  return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type: string }).activity_type : '';
}

/** The local activities the run ran before the update `updateId` was answered, since the workflow task that answered it began. */
function localActivitiesBeforeAnswer(events: Event[], updateId: string): { activities: string[]; task: number } {
  const answered = events.findIndex((e) => e.workflowExecutionUpdateCompletedEventAttributes?.meta?.updateId === updateId);
  expect(answered).toBeGreaterThan(0);
  const tasksStarted = events.slice(0, answered).flatMap((e, i) => (isTaskStarted(e) ? [i] : []));
  return { activities: events.slice(tasksStarted.at(-1), answered).filter(isMarker).map(localActivityOf), task: tasksStarted.length };
}

test("a new client's first assign is answered in its run's first workflow task, after the recording step and at most one read; a re-assign, after the recording step alone", async () => {
  const business = uniqueName('reads');
  const api = tenantApi(stack, token, business);
  expect((await api('POST', '/clients', { _id: 'c1' })).status).toBe(201);
  expect((await api('POST', '/agents', { _id: 'a1' })).status).toBe(201);
  const first = await api('POST', '/clients/c1/assign-agents', { agents: [{ agent: 'a1', dt_until: secondsFromNow(3600) }] });
  expect(first.status).toBe(200);
  const workflowId: string = first.body.assignments[0].workflow_id;
  const again = await api('POST', '/clients/c1/assign-agents', { agents: [{ agent: 'a1', dt_until: secondsFromNow(7200) }] });
  expect(again.status).toBe(200);

  const handle = stack.temporal.workflow.getHandle(workflowId);
  const events = (await handle.fetchHistory()).events ?? [];
  const updateIds = events.flatMap((e) => e.workflowExecutionUpdateCompletedEventAttributes?.meta?.updateId ?? []);
  expect(updateIds).toHaveLength(2);

  const answeredFirst = localActivitiesBeforeAnswer(events, updateIds[0]);
  expect(answeredFirst.task).toBe(1);
  expect(answeredFirst.activities.filter((a) => a === 'recordAssignmentRequests')).toHaveLength(1);
  expect(answeredFirst.activities.length).toBeLessThanOrEqual(2);
  expect(answeredFirst.activities.filter((a) => a !== 'recordAssignmentRequests').every((a) => a === 'readClientClocks')).toBe(true);

  expect(localActivitiesBeforeAnswer(events, updateIds[1]).activities).toEqual(['recordAssignmentRequests']);
  // Nothing read after either: the recording step's read of the rows stands.
  expect(events.filter(isMarker).map(localActivityOf)).not.toContain('loadClientClocks');
  const state = await handle.query<ClientRunState>('state');
  expect(state.assignments).toEqual([expect.objectContaining({ agentId: 'a1', dtUntil: again.body.assignments[0].dt_until })]);
  await handle.terminate('done');
});

/**
 * The client's run on a worker of its own whose steps are fakes: the recording step takes `recordMs` and
 * reads `recordedClocks`; a read of the assignments alone finds `rowClocks`.
 */
async function runWithFakeSteps(recordMs: number, recordedClocks: AssignmentClock[], rowClocks: AssignmentClock[]) {
  const steps: { name: string; start: number; end: number }[] = [];
  const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const start = Date.now();
    try {
      return await work();
    } finally {
      steps.push({ name, start, end: Date.now() });
    }
  };
  let recordStarted!: () => void;
  const recording = new Promise<void>((resolve) => (recordStarted = resolve));
  const activities: Partial<Activities> = {
    readClientClocks: (): Promise<ClientClocksRead> => timed('readClientClocks', async () => ({ rotations: [], firstResponses: { clocks: [], reassigned: false }, assignments: [] })),
    loadClientClocks: () => timed('loadClientClocks', async () => rowClocks),
    recordAssignmentRequests: (input: { requests: AssignUpdateInput[] }): Promise<RecordedAssignRequests> =>
      timed('recordAssignmentRequests', async () => {
        recordStarted();
        await sleep(recordMs);
        return {
          outcomes: input.requests.map((r) => ({ ok: true as const, assignments: r.agents.map((a) => ({ agentId: a.agentId, dtUntil: a.dtUntil, workflowId, expiry: {} as never })) })),
          clocks: recordedClocks,
        };
      }),
  };
  const taskQueue = uniqueName('reads');
  const workflowId = `client/${uniqueName('reads')}/c1/${randomUUID()}`;
  const worker = await Worker.create({ connection, taskQueue, workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! }, activities });
  const assign = (update: AssignUpdateInput) =>
    stack.temporal.workflow.executeUpdateWithStart(assignUpdate, {
      args: [update],
      startWorkflowOperation: new WithStartWorkflowOperation<ClientOwnershipWorkflow>(CLIENT_WORKFLOW, {
        workflowId,
        taskQueue,
        args: [{ business: 'reads', clientId: 'c1', clientPk: randomUUID() }],
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        // A short task: a long local activity heartbeats it, and a signal sent meanwhile is seen while the step runs.
        workflowTaskTimeout: '1 second',
      }),
    });
  return { worker, workflowId, steps, recording, assign, handle: () => stack.temporal.workflow.getHandle(workflowId) };
}

const clock = (agentId: string, seconds: number): AssignmentClock => ({ agentId, agentPk: `pk-${agentId}`, dtUntil: secondsFromNow(seconds) });

test("a change signalled while a batch is recorded: the run waits for the batch instead of reading beside it, then reads the rows, since the batch's read may predate that change", async () => {
  const recorded = [clock('a1', 3600)];
  const rows = [clock('a1', 3600), clock('a2', 1800)].sort((x, y) => x.dtUntil.localeCompare(y.dtUntil));
  const run = await runWithFakeSteps(4000, recorded, rows);
  await run.worker.runUntil(async () => {
    const answer = run.assign({ requestKey: randomUUID(), agents: [{ agentId: 'a1', dtUntil: recorded[0].dtUntil }] });
    await run.recording;
    await run.handle().signal(clocksChangedSignal, ['assignments']);
    expect(await answer).toMatchObject({ client: 'c1', assignments: [{ agent: 'a1' }] });
    let state: ClientRunState | undefined;
    for (const until = Date.now() + 30_000; Date.now() < until; await sleep(200)) {
      state = await run.handle().query<ClientRunState>('state');
      if (state.assignments.length === 2) break;
    }
    expect(state?.assignments).toEqual(rows);

    const events = (await run.handle().fetchHistory()).events ?? [];
    const signaled = events.findIndex((e) => !!e.workflowExecutionSignaledEventAttributes);
    const markers = events.flatMap((e, i) => (isMarker(e) ? [{ at: i, activity: localActivityOf(e) }] : []));
    // The run saw the signal while the step ran (the step's marker is written when it ends).
    expect(signaled).toBeLessThan(markers.find((m) => m.activity === 'recordAssignmentRequests')!.at);
    // One step at a time: the request's recording first, then the start's read, then the read the signal asked for.
    expect(markers.map((m) => m.activity)).toEqual(['recordAssignmentRequests', 'readClientClocks', 'loadClientClocks']);
    const record = run.steps.find((s) => s.name === 'recordAssignmentRequests')!;
    expect(run.steps.find((s) => s.name === 'readClientClocks')!.start).toBeGreaterThanOrEqual(record.end);
    expect(run.steps.find((s) => s.name === 'loadClientClocks')!.start).toBeGreaterThanOrEqual(record.end);
    await run.handle().terminate('done');
  });
});

test('no change signalled while a batch is recorded: the run takes the rows the batch read, and reads nothing more', async () => {
  const recorded = [clock('a1', 3600), clock('a2', 5400)];
  const run = await runWithFakeSteps(0, recorded, []);
  await run.worker.runUntil(async () => {
    await run.assign({ requestKey: randomUUID(), agents: [{ agentId: 'a1', dtUntil: recorded[0].dtUntil }] });
    expect((await run.handle().query<ClientRunState>('state')).assignments).toEqual(recorded);
    // A local activity may run again when its workflow task timed out on a loaded machine (the task is 1 s here): which ran matters.
    expect([...new Set(run.steps.map((s) => s.name))].sort()).toEqual(['readClientClocks', 'recordAssignmentRequests']);
    await run.handle().terminate('done');
  });
});
