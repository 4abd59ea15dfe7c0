import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../../activities';
import {
  AGENT_IDS,
  applyRotationUpdate,
  ASSIGNMENT_DT_UNTIL,
  assignmentChangedSignal,
  assignUpdate,
  CLIENT_RUN_HISTORY_LIMIT,
  CLOCK_KINDS,
  clientRunStateQuery,
  clocksChangedSignal,
  type AssignAgentsResult,
  type AssignmentClock,
  type AssignUpdateInput,
  type ClientRunInput,
  type ClientRunResult,
  type ClockKind,
  type ClientClocksRead,
  type ClientRunState,
  type FirstResponseClocks,
  type RecordedAssignRequests,
  type RotationClock,
} from '../../domain';
import { anyDue, assignmentDue, planClocks, type ClockView } from '../../domain/client-clock-plan';
import { describeFirstResponses, firstResponseWakes, type FirstResponseWake } from '../routing/client-first-responses';
import { conversationWakes, describeConversations, type ConversationWake } from '../conversations/client-conversations';
import { describeRotations, rotationClocksOf, rotationWakes, RotationSteps, type RotationWake } from '../rotation/client-rotations';
import { RECORDING_STEP_OPTIONS } from '../retry-budget';
import { OneStepAtATime } from './client-steps';
import { CHUNK_JITTER_MS } from '../timers';
import { continueAsNewOnTarget } from '../versioning';

type Activities = ReturnType<typeof createActivities>;

const { recordAssignmentRequests } = proxyLocalActivities<Activities>(RECORDING_STEP_OPTIONS);

// The clocks: a database that is down delays an expiry, which then happens as soon as it is back.
const { readClientClocks, loadClientClocks, expireDueAssignments, stepFirstResponses, advanceClientRotations, stepConversations } = proxyLocalActivities<Activities>({
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
 * …/agents/{agent}).
 */
export async function clientOwnership(input: ClientRunInput): Promise<ClientRunResult> {
  const run = new ClientRun(input, new OneStepAtATime());
  run.listen();
  // The workflow's Math.random is seeded per run, so a replay draws the same jitter.
  return run.hold(Math.floor(Math.random() * CHUNK_JITTER_MS));
}

interface WaitingRequest {
  update: AssignUpdateInput;
  answer: (result: AssignAgentsResult) => void;
  fail: (error: unknown) => void;
}

/** What a read of several kinds knew when it began. */
interface ReadBegun {
  kinds: ClockKind[];
  seen: number;
  due: boolean;
  seq: number;
}

/**
 * The run's clocks and the effects of its plan (src/domain/client-clock-plan.ts says which comes next).
 * Each step is awaited in `hold` itself, its bookkeeping before and after it synchronous, so a step's
 * result reaches the loop in as many microtasks as it always did.
 */
class ClientRun {
  /** The kinds of rows to re-read before the run sleeps again: every kind when it starts (a new run knows nothing). */
  private readonly stale = new Set<ClockKind>(CLOCK_KINDS);
  /** An update changed `clocks` itself: the timer is set again, nothing re-read. */
  private rearm = false;
  /** Batches of requests recorded: a read of the assignments that one outlasted is the batch's to replace. */
  private revision = 0;
  /**
   * Changes of the client's assignments the run learned of other than by recording them: a path's signal,
   * or one of its own steps. A batch's read of the assignments stands only if none was counted after the
   * batch began (one counted later may have committed after that read).
   */
  private assignmentChanges = 0;
  private clocks: AssignmentClock[] = [];
  private responses: FirstResponseWake[] = [];
  private rotations: RotationWake[] = [];
  private conversations: ConversationWake[] = [];
  private readonly rotationSteps = new RotationSteps();
  private nextWakeAt: string | null = null;
  // Requests are recorded in arrival order, those that queued meanwhile together in one step: two requests
  // for one client never race on its rows, and a burst for one client costs one local activity per batch.
  private readonly waiting: WaitingRequest[] = [];
  private recording = false;
  private shown = '';

  constructor(
    private readonly input: ClientRunInput,
    private readonly steps: OneStepAtATime,
  ) {}

  listen(): void {
    // An assignment that ended may have ended a first-response clock the run holds.
    setHandler(assignmentChangedSignal, () => this.markStale(this.responses.length > 0 ? ['assignments', 'firstResponses'] : ['assignments']));
    setHandler(clocksChangedSignal, (kinds) => this.markStale(kinds ?? []));
    setHandler(clientRunStateQuery, () => this.state());
    setHandler(applyRotationUpdate, async ({ rotationKey, version }) => {
      const answer = this.rotationSteps.answerFor(rotationKey, version);
      this.stale.add('rotations');
      await condition(() => answer() !== undefined);
      return answer()!;
    });
    setHandler(
      assignUpdate,
      (update) =>
        new Promise<AssignAgentsResult>((answer, fail) => {
          this.waiting.push({ update, answer, fail });
          if (!this.recording) void this.recordWaiting();
        }),
    );
  }

  async hold(jitterMs: number): Promise<ClientRunResult> {
    const { clientPk } = this.input;
    for (;;) {
      const plan = planClocks(this.view(jitterMs));
      if (plan.rowsRead) this.rearm = false;
      switch (plan.step) {
        case 'readKinds': {
          const begun = this.beginRead(plan.kinds);
          // The step never runs behind the run's clock: a period due by it is handed out from its boundary.
          this.endRead(begun, await this.steps.step(() => readClientClocks({ clientPk, asOf: new Date().toISOString(), kinds: begun.kinds })));
          break;
        }
        case 'advanceRotations': {
          const seq = this.beginRotations();
          // As close to the run's clock as it can (a step that runs later than a whole period after it
          // records that period as missed); it never runs behind it.
          this.endRotations(seq, await this.steps.step(() => advanceClientRotations({ clientPk, asOf: new Date().toISOString() })));
          break;
        }
        case 'awaitRecording':
          await condition(() => !this.recording || !this.onlyAssignmentsStale());
          break;
        case 'loadAssignments': {
          this.stale.delete('assignments');
          const seen = this.revision;
          const loaded = await this.steps.step(() => loadClientClocks({ clientPk }));
          // Otherwise a batch recorded meanwhile read them after its commit, and asked for another read if that one may be behind.
          if (this.revision === seen) this.clocks = loaded;
          break;
        }
        case 'stepFirstResponses': {
          const due = this.beginFirstResponses();
          this.endFirstResponses(due, await this.steps.step(() => stepFirstResponses({ clientPk })));
          break;
        }
        case 'stepConversations':
          this.stale.delete('conversations');
          this.conversations = conversationWakes(await this.steps.step(() => stepConversations({ clientPk })), Date.now());
          break;
        case 'expireAssignments': {
          const seen = this.revision;
          this.expired(seen, await this.steps.step(() => expireDueAssignments({ clientPk })));
          // Still due: the database's clock is behind the worker's.
          if (assignmentDue(this.clocks, Date.now())) await condition(() => this.stale.has('assignments'), MIN_RECHECK_MS);
          break;
        }
        case 'idle':
          this.nextWakeAt = null;
          this.show();
          // A request or a change that arrives meanwhile is answered first; a new run would not know it.
          await condition(() => allHandlersFinished() || this.changedOrRearmed());
          if (this.changedOrRearmed() || !allHandlersFinished()) break;
          return { outcome: 'idle' };
        case 'continueAsNew':
          await condition(allHandlersFinished);
          // The next run re-reads the rows: it carries nothing but the client's keys.
          return continueAsNewOnTarget<typeof clientOwnership>(this.input);
        case 'sleep':
          this.nextWakeAt = plan.wakeAt;
          this.show();
          await condition(() => this.changedOrRearmed(), plan.sleepMs, { summary: plan.summary });
          break;
      }
    }
  }

  private view(jitterMs: number): ClockView {
    const info = workflowInfo();
    return {
      stale: this.stale,
      recording: this.recording,
      nowMs: Date.now(),
      assignments: this.clocks,
      firstResponses: this.responses,
      rotations: this.rotations,
      conversations: this.conversations,
      history: { length: info.historyLength, limit: this.input.historyLimit ?? CLIENT_RUN_HISTORY_LIMIT, continueAsNewSuggested: info.continueAsNewSuggested, targetVersionChanged: info.targetWorkerDeploymentVersionChanged },
      jitterMs,
    };
  }

  private beginRead(kinds: ClockKind[]): ReadBegun {
    this.stale.clear();
    return { kinds, seen: this.revision, due: anyDue(this.responses, Date.now()), seq: kinds.includes('rotations') ? this.rotationSteps.begin() : 0 };
  }

  private endRead(begun: ReadBegun, read: ClientClocksRead): void {
    let changed = false;
    if (read.rotations) {
      this.rotationSteps.end(begun.seq, read.rotations);
      this.rotations = rotationWakes(read.rotations, Date.now());
      changed = read.rotations.length > 0;
    }
    if (read.firstResponses) {
      this.responses = firstResponseWakes(read.firstResponses.clocks, Date.now());
      changed ||= read.firstResponses.reassigned || begun.due;
    }
    if (read.conversations) this.conversations = conversationWakes(read.conversations, Date.now());
    if (changed) this.assignmentChanges++;
    // A batch recorded meanwhile read the assignments after its commit; the steps of this read may have changed them after that.
    if (this.revision === begun.seen) this.clocks = read.assignments;
    else if (changed) this.stale.add('assignments');
  }

  private beginRotations(): number {
    this.stale.delete('rotations');
    return this.rotationSteps.begin();
  }

  private endRotations(seq: number, stepped: RotationClock[]): void {
    this.rotationSteps.end(seq, stepped);
    this.rotations = rotationWakes(stepped, Date.now());
    // A period handed out (or run on) is an assignment of the client: its clock is re-read.
    if (stepped.length > 0) this.assignmentsChanged();
  }

  private beginFirstResponses(): boolean {
    this.stale.delete('firstResponses');
    return anyDue(this.responses, Date.now());
  }

  private endFirstResponses(due: boolean, stepped: FirstResponseClocks): void {
    this.responses = firstResponseWakes(stepped.clocks, Date.now());
    // A due clock may have moved its client (even in a step that failed after its commit): the assignments changed.
    if (stepped.reassigned || due) this.assignmentsChanged();
  }

  private expired(seen: number, left: AssignmentClock[]): void {
    this.assignmentChanges++;
    if (this.revision !== seen) this.stale.add('assignments');
    else this.clocks = left;
    // An expiry ends the first-response clock of its decision.
    if (this.responses.length > 0) this.stale.add('firstResponses');
  }

  private async recordWaiting(): Promise<void> {
    this.recording = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MAX_REQUESTS_PER_STEP);
        const changesBefore = this.assignmentChanges;
        let recorded: RecordedAssignRequests;
        try {
          recorded = await this.steps.record(() => recordAssignmentRequests({ business: this.input.business, clientId: this.input.clientId, clientPk: this.input.clientPk, requests: batch.map((w) => w.update) }));
        } catch (error) {
          for (const w of batch) w.fail(error);
          // Some of the batch may have committed before it failed.
          this.assignmentsChanged();
          continue;
        }
        this.answer(batch, recorded, changesBefore);
      }
    } finally {
      this.recording = false;
    }
  }

  /** Each request of a committed batch answered; the rows as read after the commit become the clocks. */
  private answer(batch: WaitingRequest[], recorded: RecordedAssignRequests, changesBefore: number): void {
    recorded.outcomes.forEach((outcome, i) => {
      if (!outcome.ok) return batch[i].fail(ApplicationFailure.create({ type: outcome.type, message: outcome.message, nonRetryable: true }));
      batch[i].answer({
        client: this.input.clientId,
        assignments: outcome.assignments.map((r) => ({ agent: r.agentId, dt_until: r.dtUntil, status: 'active' as const, workflow_id: r.workflowId })),
      });
    });
    // Read after the batch committed: the rows as they stand, a request asked again (whose answer is its first outcome) included.
    this.clocks = recorded.clocks;
    this.revision++;
    // A change counted since the batch began may postdate that read; the loop may have begun a read before the batch ended and dropped it since.
    if (this.assignmentChanges === changesBefore) this.stale.delete('assignments');
    else this.stale.add('assignments');
    this.rearm = true;
  }

  private markStale(kinds: readonly ClockKind[]): void {
    (kinds.length === 0 ? CLOCK_KINDS : kinds).forEach((kind) => (kind === 'assignments' ? this.assignmentsChanged() : this.stale.add(kind)));
  }

  private assignmentsChanged(): void {
    this.assignmentChanges++;
    this.stale.add('assignments');
  }

  private changedOrRearmed(): boolean {
    return this.stale.size > 0 || this.rearm;
  }

  private onlyAssignmentsStale(): boolean {
    return this.stale.size === 1 && this.stale.has('assignments');
  }

  private state(): ClientRunState {
    return {
      assignments: this.clocks,
      firstResponses: this.responses.map(({ decisionId, dueAt }) => ({ decisionId, dueAt })),
      rotations: rotationClocksOf(this.rotations),
      conversations: this.conversations.map(({ conversationId, reason, dueAt }) => ({ conversationId, reason, dueAt })),
      nextWakeAt: this.nextWakeAt,
    };
  }

  /** The run as an operator sees it: its clocks in its current details, its agents and earliest dt_until as search attributes. */
  private show(): void {
    const agents = this.clocks.map((c) => c.agentId);
    const earliest = this.clocks[0]?.dtUntil;
    const held = [...this.clocks.map((c) => `${c.agentId} until ${c.dtUntil}`), ...describeFirstResponses(this.responses), ...describeRotations(this.rotations), ...describeConversations(this.conversations)];
    const { clientId } = this.input;
    setCurrentDetails(held.length === 0 ? `Client ${clientId}: no clock` : `Client ${clientId}: ${held.join(', ')}; next wake-up ${this.nextWakeAt}`);
    const attributes = JSON.stringify([agents, earliest]);
    if (attributes === this.shown) return;
    this.shown = attributes;
    upsertSearchAttributes([
      { key: AGENT_IDS, value: agents },
      { key: ASSIGNMENT_DT_UNTIL, value: earliest ? new Date(earliest) : null },
    ] as Parameters<typeof upsertSearchAttributes>[0]);
  }
}
