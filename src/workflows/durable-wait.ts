import { condition, setHandler, workflowInfo, type QueryDefinition, type SignalDefinition, type Workflow } from '@temporalio/workflow';
import { nextSleepMs } from './timers';
import { continueAsNewOnTarget, targetVersionChanged } from './versioning';

/*
 * The steps the row-backed workflows (a message, a batch, an assignment's expiry) share: the database row
 * is the truth, a signal only says "re-read it", and the run waits durably for a deadline in timer chunks,
 * continuing as new between them.
 */

/** Raised by the run's "re-read the row" signal; the run lowers it when it re-reads. */
export interface ChangeFlag {
  changed: boolean;
}

/** Registers the run's "re-read the row" signal, then its state query; returns the flag the signal raises. */
export function listenForChanges<State>(changedSignal: SignalDefinition<[]>, stateQuery: QueryDefinition<State>, state: () => State): ChangeFlag {
  const flag: ChangeFlag = { changed: false };
  setHandler(changedSignal, () => {
    flag.changed = true;
  });
  setHandler(stateQuery, state);
  return flag;
}

export interface ChunkOfWait<W extends Workflow> {
  deadlineMs: number;
  /** Taken off a chunk that does not reach the deadline (see CHUNK_JITTER_MS). */
  jitterMs?: number;
  flag: ChangeFlag;
  /** Told when the run will wake, before its timer starts. */
  beforeSleep(wakeAt: string): void;
  /** The timer's summary in the Temporal UI. */
  summary(wakeAt: string, reachesDeadline: boolean): string;
  /** The arguments of the run it continues as. */
  next(): Parameters<W>;
}

/**
 * Sleeps towards the deadline, one timer chunk at most, or until the flag is raised. A chunk that ends
 * short of the deadline, or a history Temporal finds long, continues as new (and so never returns), onto
 * the target version; so does a run that is about to sleep after a newer version became its target.
 */
export async function sleepChunk<W extends Workflow>(wait: ChunkOfWait<W>): Promise<void> {
  if (targetVersionChanged()) await continueAsNewOnTarget<W>(...wait.next());
  // The workflow's clock: the activation's time, the same all through it.
  const now = Date.now();
  const { sleepMs, reachesDeadline } = nextSleepMs(wait.deadlineMs, now, wait.jitterMs);
  const wakeAt = new Date(now + sleepMs).toISOString();
  wait.beforeSleep(wakeAt);
  if (await condition(() => wait.flag.changed, sleepMs, { summary: wait.summary(wakeAt, reachesDeadline) })) return;
  if (!reachesDeadline) await continueAsNewOnTarget<W>(...wait.next());
  await continueAsNewIfSuggested<W>(...wait.next());
}

/** Continues as new (onto the target version) when Temporal suggests it (the history has grown long). */
export async function continueAsNewIfSuggested<W extends Workflow>(...args: Parameters<W>): Promise<void> {
  if (workflowInfo().continueAsNewSuggested) await continueAsNewOnTarget<W>(...args);
}
