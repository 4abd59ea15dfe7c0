import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  continueAsNew,
  patched,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities';
import {
  AGENT_IDS,
  applyRotationUpdate,
  ASSIGNMENT_DT_UNTIL,
  assignmentChangedSignal,
  assignUpdate,
  CLIENT_RUN_HISTORY_LIMIT,
  CLIENT_RUN_ONE_STEP_PATCH,
  CLOCK_KINDS,
  clientRunStateQuery,
  clocksChangedSignal,
  type AssignAgentsResult,
  type AssignmentClock,
  type AssignUpdateInput,
  CANCEL_KEEPS_ROWS_PATCH,
  type ClientRunInput,
  type ClientRunResult,
  type ClockKind,
  type RecordedAssignRequests,
} from '../domain';
import { describeFirstResponses, firstResponseWakes, type FirstResponseWake } from './client-first-responses';
import { conversationWakes, describeConversations, type ConversationWake } from './client-conversations';
import { describeRotations, rotationClocksOf, rotationWakes, RotationSteps, type RotationWake } from './client-rotations';
import { RECORDING_STEP_OPTIONS } from './retry-budget';
import { OneStepAtATime } from './client-steps';
import { CHUNK_JITTER_MS, nextSleepMs } from './timers';

type Activities = ReturnType<typeof createActivities>;

const { recordAssignmentRequests } = proxyLocalActivities<Activities>(RECORDING_STEP_OPTIONS);

// The clocks: a database that is down delays an expiry, which then happens as soon as it is back.
const { readClientClocks, loadClientClocks, expireDueAssignments, endClientAssignmentsByOperator, stepFirstResponses, advanceClientRotations, stopClientRotationsByOperator, stepConversations } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** At most this many requests recorded in one local activity (each its own transaction): its 10 s must hold them. */
const MAX_REQUESTS_PER_STEP = 50;

/** A database clock slightly behind the worker's must not turn the loop into a busy one. */
const MIN_RECHECK_MS = 1000;

/**
 * The client's run: it holds every clock of the client — each active assignment's `dt_until`, the
 * first-response deadline of each routing decision whose clock runs, the next boundary of each active
 * rotation, each snooze and reply clock of its conversations — with one timer, the earliest (in
 * chunks beyond the server's timer cap), and answers assign-agents requests (the `assign` update, one at
 * a time, in the order they arrive) and a rotation's PUT (the `applyRotation` update: the period due now
 * handed out). The rows are the truth: the run re-reads a kind of rows whenever a
 * path that changed them says so (`clocksChanged`, `assignmentChanged`), and each step acts only on what
 * is due in the rows. It ends when the client holds no clock; it continues as new when its history grows
 * long, once no update is in flight. The Temporal UI's buttons change no row: an operator's "Request
 * Cancellation" stops the run (Canceled), as Terminate does, and the reconciler starts it again from the
 * rows, which keep every assignment, rotation and clock; ending an assignment is an API call (DELETE
 * …/agents/{agent}). Runs canceled before CANCEL_KEEPS_ROWS_PATCH ended them, and replay so.
 */
export async function clientOwnership(input: ClientRunInput): Promise<ClientRunResult> {
  try {
    return await holdClocks(input);
  } catch (error) {
    if (isCancellation(error) && !patched(CANCEL_KEEPS_ROWS_PATCH)) {
      // The rotations first: an assignment ended now must not run on into the next period.
      await CancellationScope.nonCancellable(async () => {
        await stopClientRotationsByOperator({ clientPk: input.clientPk });
        await endClientAssignmentsByOperator({ clientPk: input.clientPk });
      });
    }
    throw error;
  }
}

async function holdClocks(input: ClientRunInput): Promise<ClientRunResult> {
  const steps = new OneStepAtATime(patched(CLIENT_RUN_ONE_STEP_PATCH));
  /** The kinds of rows to re-read before the run sleeps again: every kind when it starts (a new run knows nothing). */
  const stale = new Set<ClockKind>(CLOCK_KINDS);
  const markStale = (kinds: readonly ClockKind[]) => (kinds.length === 0 ? CLOCK_KINDS : kinds).forEach((kind) => (kind === 'assignments' ? assignmentsChanged() : stale.add(kind)));
  /** An update changed `clocks` itself: the timer is set again, nothing re-read. */
  let rearm = false;
  /** Batches of requests recorded: a read of the assignments that one outlasted is the batch's to replace. */
  let revision = 0;
  /**
   * Changes of the client's assignments the run learned of other than by recording them: a path's signal,
   * or one of its own steps. A batch's read of the assignments stands only if none was counted after the
   * batch began (one counted later may have committed after that read).
   */
  let assignmentChanges = 0;
  const assignmentsChanged = () => {
    assignmentChanges++;
    stale.add('assignments');
  };
  let clocks: AssignmentClock[] = [];
  let responses: FirstResponseWake[] = [];
  let rotations: RotationWake[] = [];
  let conversations: ConversationWake[] = [];
  const rotationSteps = new RotationSteps();
  let nextWakeAt: string | null = null;
  // Requests are recorded in arrival order, those that queued meanwhile together in one step: two requests
  // for one client never race on its rows, and a burst for one client costs one local activity per batch.
  const waiting: { update: AssignUpdateInput; answer: (result: AssignAgentsResult) => void; fail: (error: unknown) => void }[] = [];
  let recording = false;
  const recordWaiting = async () => {
    recording = true;
    try {
      while (waiting.length > 0) {
        const batch = waiting.splice(0, MAX_REQUESTS_PER_STEP);
        const changesBefore = assignmentChanges;
        let recorded: RecordedAssignRequests;
        try {
          recorded = await steps.record(() => recordAssignmentRequests({ business: input.business, clientId: input.clientId, clientPk: input.clientPk, requests: batch.map((w) => w.update) }));
        } catch (error) {
          for (const w of batch) w.fail(error);
          // Some of the batch may have committed before it failed.
          assignmentsChanged();
          continue;
        }
        recorded.outcomes.forEach((outcome, i) => {
          if (!outcome.ok) return batch[i].fail(ApplicationFailure.create({ type: outcome.type, message: outcome.message, nonRetryable: true }));
          batch[i].answer({
            client: input.clientId,
            assignments: outcome.assignments.map((r) => ({ agent: r.agentId, dt_until: r.dtUntil, status: 'active' as const, workflow_id: r.workflowId })),
          });
        });
        // Read after the batch committed: the rows as they stand, a request asked again (whose answer is its first outcome) included.
        clocks = recorded.clocks;
        revision++;
        // A change counted since the batch began may postdate that read; the loop may have begun a read before the batch ended and dropped it since.
        if (assignmentChanges === changesBefore) stale.delete('assignments');
        else stale.add('assignments');
        rearm = true;
      }
    } finally {
      recording = false;
    }
  };

  // An assignment that ended may have ended a first-response clock the run holds.
  setHandler(assignmentChangedSignal, () => markStale(responses.length > 0 ? ['assignments', 'firstResponses'] : ['assignments']));
  setHandler(clocksChangedSignal, (kinds) => markStale(kinds ?? []));
  setHandler(clientRunStateQuery, () => ({
    assignments: clocks,
    firstResponses: responses.map(({ decisionId, dueAt }) => ({ decisionId, dueAt })),
    rotations: rotationClocksOf(rotations),
    conversations: conversations.map(({ conversationId, reason, dueAt }) => ({ conversationId, reason, dueAt })),
    nextWakeAt,
  }));
  setHandler(applyRotationUpdate, async ({ rotationKey, version }) => {
    const answer = rotationSteps.answerFor(rotationKey, version);
    stale.add('rotations');
    await condition(() => answer() !== undefined);
    return answer()!;
  });
  setHandler(
    assignUpdate,
    (update) =>
      new Promise<AssignAgentsResult>((answer, fail) => {
        waiting.push({ update, answer, fail });
        if (!recording) void recordWaiting();
      }),
  );

  // The workflow's Math.random is seeded per run, so a replay draws the same jitter.
  const jitterMs = Math.floor(Math.random() * CHUNK_JITTER_MS);
  const historyLimit = input.historyLimit ?? CLIENT_RUN_HISTORY_LIMIT;
  let shown = '';
  const show = () => {
    const agents = clocks.map((c) => c.agentId);
    const earliest = clocks[0]?.dtUntil;
    const held = [...clocks.map((c) => `${c.agentId} until ${c.dtUntil}`), ...describeFirstResponses(responses), ...describeRotations(rotations), ...describeConversations(conversations)];
    setCurrentDetails(held.length === 0 ? `Client ${input.clientId}: no clock` : `Client ${input.clientId}: ${held.join(', ')}; next wake-up ${nextWakeAt}`);
    const attributes = JSON.stringify([agents, earliest]);
    if (attributes === shown) return;
    shown = attributes;
    upsertSearchAttributes([
      { key: AGENT_IDS, value: agents },
      { key: ASSIGNMENT_DT_UNTIL, value: earliest ? new Date(earliest) : null },
    ] as Parameters<typeof upsertSearchAttributes>[0]);
  };
  const changedOrRearmed = () => stale.size > 0 || rearm;

  const onlyAssignmentsStale = () => stale.size === 1 && stale.has('assignments');

  for (;;) {
    if (stale.size > 1) {
      // Several kinds (every kind when the run starts): one local activity reads them all, the assignments last.
      const kinds = [...stale];
      stale.clear();
      const seen = revision;
      const due = responses.some((r) => r.wakeAt <= Date.now());
      const seq = kinds.includes('rotations') ? rotationSteps.begin() : 0;
      // The step never runs behind the run's clock: a period due by it is handed out from its boundary.
      const read = await steps.step(() => readClientClocks({ clientPk: input.clientPk, asOf: new Date().toISOString(), kinds }));
      let changed = false;
      if (read.rotations) {
        rotationSteps.end(seq, read.rotations);
        rotations = rotationWakes(read.rotations, Date.now());
        changed = read.rotations.length > 0;
      }
      if (read.firstResponses) {
        responses = firstResponseWakes(read.firstResponses.clocks, Date.now());
        changed ||= read.firstResponses.reassigned || due;
      }
      if (read.conversations) conversations = conversationWakes(read.conversations, Date.now());
      if (changed) assignmentChanges++;
      // A batch recorded meanwhile read the assignments after its commit; the steps of this read may have changed them after that.
      if (revision === seen) clocks = read.assignments;
      else if (changed) stale.add('assignments');
      continue;
    }
    if (stale.has('rotations')) {
      stale.delete('rotations');
      const seq = rotationSteps.begin();
      // First in the loop, so the step runs as close to the run's clock as it can (a step that runs later than
      // a whole period after it records that period as missed); it never runs behind it.
      const stepped = await steps.step(() => advanceClientRotations({ clientPk: input.clientPk, asOf: new Date().toISOString() }));
      rotationSteps.end(seq, stepped);
      rotations = rotationWakes(stepped, Date.now());
      // A period handed out (or run on) is an assignment of the client: its clock is re-read.
      if (stepped.length > 0) assignmentsChanged();
      continue;
    }
    if (stale.has('assignments')) {
      // A batch being recorded reads them after its commit: no second read beside it.
      if (recording) {
        await condition(() => !recording || !onlyAssignmentsStale());
        continue;
      }
      stale.delete('assignments');
      const seen = revision;
      const loaded = await steps.step(() => loadClientClocks({ clientPk: input.clientPk }));
      // Otherwise a batch recorded meanwhile read them after its commit, and asked for another read if that one may be behind.
      if (revision === seen) clocks = loaded;
      continue;
    }
    if (stale.has('firstResponses')) {
      stale.delete('firstResponses');
      const due = responses.some((r) => r.wakeAt <= Date.now());
      const stepped = await steps.step(() => stepFirstResponses({ clientPk: input.clientPk }));
      responses = firstResponseWakes(stepped.clocks, Date.now());
      // A due clock may have moved its client (even in a step that failed after its commit): the assignments changed.
      if (stepped.reassigned || due) assignmentsChanged();
      continue;
    }
    if (stale.has('conversations')) {
      stale.delete('conversations');
      conversations = conversationWakes(await steps.step(() => stepConversations({ clientPk: input.clientPk })), Date.now());
      continue;
    }
    rearm = false;
    // At a boundary the rotation steps before the expiry: it hands out the next period from the boundary, or runs the same agent's on.
    if (rotations.some((r) => r.wakeAt <= Date.now())) {
      stale.add('rotations');
      continue;
    }
    if (clocks.length > 0 && Date.parse(clocks[0].dtUntil) <= Date.now()) {
      const seen = revision;
      const left = await steps.step(() => expireDueAssignments({ clientPk: input.clientPk }));
      assignmentChanges++;
      if (revision !== seen) stale.add('assignments');
      else clocks = left;
      // An expiry ends the first-response clock of its decision.
      if (responses.length > 0) stale.add('firstResponses');
      // Still due: the database's clock is behind the worker's.
      if (clocks.length > 0 && Date.parse(clocks[0].dtUntil) <= Date.now()) await condition(() => stale.has('assignments'), MIN_RECHECK_MS);
      continue;
    }
    if (responses.some((r) => r.wakeAt <= Date.now())) {
      stale.add('firstResponses');
      continue;
    }
    if (conversations.some((c) => c.wakeAt <= Date.now())) {
      stale.add('conversations');
      continue;
    }
    const next = earliestClock(clocks, responses, rotations, conversations);
    if (!next) {
      nextWakeAt = null;
      show();
      // A request or a change that arrives meanwhile is answered first; a new run would not know it.
      await condition(() => allHandlersFinished() || changedOrRearmed());
      if (changedOrRearmed() || !allHandlersFinished()) continue;
      return { outcome: 'idle' };
    }
    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= historyLimit) {
      await condition(allHandlersFinished);
      // The next run re-reads the rows: it carries nothing but the client's keys.
      await continueAsNew<typeof clientOwnership>(input);
    }
    const { sleepMs, reachesDeadline } = nextSleepMs(next.at, Date.now(), jitterMs);
    nextWakeAt = new Date(Date.now() + sleepMs).toISOString();
    show();
    const summary = reachesDeadline ? next.summary : `Wait one chunk, until ${nextWakeAt}`;
    // At the end of a chunk short of the deadline the loop simply sleeps again.
    await condition(changedOrRearmed, sleepMs, { summary });
  }
}

/** The clock the run's timer is set for: the earliest of every kind; none when the client holds none. */
function earliestClock(clocks: AssignmentClock[], responses: FirstResponseWake[], rotations: RotationWake[], conversations: ConversationWake[]): { at: number; summary: string } | null {
  const candidates = [
    ...clocks.slice(0, 1).map((c) => ({ at: Date.parse(c.dtUntil), summary: `Expire ${c.agentId} at dt_until ${c.dtUntil}` })),
    ...responses.map((r) => ({ at: r.wakeAt, summary: r.dueAt ? `First response of decision ${r.decisionId} due at ${r.dueAt}` : `Decision ${r.decisionId}: owner has no working time ahead` })),
    ...rotations.map((r) => ({ at: r.wakeAt, summary: `Rotation's next period at ${r.nextChangeAt}` })),
    ...conversations.slice(0, 1).map((c) => ({ at: c.wakeAt, summary: c.reason === 'snooze' ? `Conversation ${c.conversationId} snoozed until ${c.dueAt}` : `Conversation ${c.conversationId} due for an answer at ${c.dueAt}` })),
  ];
  return candidates.reduce<{ at: number; summary: string } | null>((earliest, c) => (!earliest || c.at < earliest.at ? c : earliest), null);
}
