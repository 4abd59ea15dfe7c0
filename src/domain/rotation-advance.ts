import type { RotationStep } from './rotations';
import { currentOf, pendingOf, scheduleOf, skippedOf, type CurrentPeriod, type RotationColumns, type SkippedPeriod } from './rotation-row';
import { nextChange, periodStartAt, takeOverAt, type Schedule, type Segment } from './rotation-schedule';

/*
 * The rotation's state machine, without a database: what a PUT does to the rotation in force, which
 * periods a step hands out or records as skipped, and what the step reports. The use cases
 * (src/use-cases/rotation/) run these on the row they hold locked, and hand the period out themselves.
 */

/** A PUT's content, checked by the API. */
export interface RotationRequestData {
  agentIds: string[];
  period: string;
  periodMs: number;
  startsAt: Date | null;
  notes: string | null;
  applyNow: boolean;
}

/** The skipped periods a row keeps, the latest. */
export const MAX_SKIPPED = 50;

export const ENDED_STEP: RotationStep = { state: 'ended', version: 0, nextChangeAt: null, current: null, next: null };

/** What a step knows of the clocks, so a period it cannot hand out any more is recorded for what happened. */
export interface StepClock {
  /** When the rotation's workflow task ran (the workflow's clock); the step may run later. */
  asOf?: Date;
  /** Since when the worker running the step has been up. */
  workerSince?: Date;
}

/** Where a rotation stands, as its row keeps it. */
export interface RotationState {
  schedule: Schedule;
  pending: Schedule | null;
  coveredUntil: Date | null;
  current: CurrentPeriod | null;
  skipped: SkippedPeriod[];
}

type RotationRow = RotationColumns & { coveredUntil: Date | null };

export const rotationStateOf = (row: RotationRow): RotationState => ({
  schedule: scheduleOf(row),
  pending: pendingOf(row),
  coveredUntil: row.coveredUntil,
  current: currentOf(row),
  skipped: [...skippedOf(row)],
});

/** The schedule a PUT states: it takes over at the end of the period in progress, or now with `applyNow`, never before its own `startsAt`. */
export function requestedSchedule(request: RotationRequestData, now: Date, periodInProgressUntil: Date | null): Schedule {
  const effectiveAt = takeOverAt({ now, periodInProgressUntil, applyNow: request.applyNow, startsAt: request.startsAt });
  return { agentIds: request.agentIds, period: request.period, periodMs: request.periodMs, startsAt: request.startsAt ?? effectiveAt, effectiveAt, notes: request.notes };
}

/** A PUT that states the rotation already in force changes nothing, so repeating one is safe. */
export function statesRotationInForce(existing: RotationColumns & { status: string }, request: RotationRequestData): boolean {
  return (
    existing.status === 'active' &&
    existing.pending === null &&
    !request.applyNow &&
    request.startsAt === null &&
    Number(existing.periodMs) === request.periodMs &&
    existing.notes === request.notes &&
    existing.agentIds.length === request.agentIds.length &&
    existing.agentIds.every((id, i) => id === request.agentIds[i])
  );
}

/**
 * A replacement of an existing rotation: the period in progress is cut short at the new schedule's
 * start when that comes first (`cut`: the assignment the rotation made for it ends there too); when the
 * new schedule starts later, the rotation in force goes on until then (`keepInForce`, the new one kept
 * as pending). A stopped rotation does not come back for that time.
 */
export function replacementOf(existing: RotationRow & { status: string }, schedule: Schedule, now: Date) {
  let coveredUntil = existing.coveredUntil;
  let current = currentOf(existing);
  let cut: { agentPk: string; from: Date; to: Date } | null = null;
  const inProgress = coveredUntil !== null && coveredUntil > now;
  if (inProgress && schedule.effectiveAt < coveredUntil!) {
    if (current) {
      cut = { agentPk: current.agentPk, from: coveredUntil!, to: schedule.effectiveAt };
      current = { ...current, expiry: { ...current.expiry, dtUntil: schedule.effectiveAt.toISOString() } };
    }
    coveredUntil = schedule.effectiveAt;
  }
  const keepInForce = existing.status === 'active' && inProgress && schedule.effectiveAt > coveredUntil!;
  return { coveredUntil, current, cut, keepInForce };
}

/**
 * The periods due at `now`, in schedule order. Periods that ended before the step could run are not
 * handed out after the fact (`skipped` says whether no worker ran or the step waited); the one in
 * progress is, from its scheduled start: `handOut`, for the caller to give to its agent (or the next
 * one who can take it), which then covers the rotation until the segment's end.
 */
export function planAdvance(state: RotationState, now: Date, clock: StepClock): { state: RotationState; changed: boolean; handOut: Segment | null } {
  let { schedule, pending, coveredUntil, current } = state;
  const skipped = [...state.skipped];
  let changed = false;
  let handOut: Segment | null = null;
  for (let guard = 0; guard < 100; guard++) {
    const change = nextChange({ schedule, pending, coveredUntil });
    if (change.replaced) {
      schedule = change.schedule;
      pending = null;
      changed = true;
    }
    if (change.at > now) break;
    changed = true;
    const missedUntil = missedPeriodsEnd(change.at, change.segment, schedule, pending, now);
    if (missedUntil) {
      skipped.push({ at: change.at.toISOString(), until: missedUntil.toISOString(), position: null, agent: null, reason: missedReason(change.at, missedUntil, now, clock) });
      coveredUntil = missedUntil;
      current = null;
      continue;
    }
    handOut = change.segment;
    break;
  }
  return { state: { schedule, pending, coveredUntil, current, skipped }, changed, handOut };
}

/** The period in progress at `now`, when someone has it. */
export const periodInProgress = ({ current, coveredUntil }: RotationState, now: Date): CurrentPeriod | null =>
  current !== null && coveredUntil !== null && coveredUntil > now ? current : null;

/** What a step reports to the workflow: the period in progress, and whose the next one is. */
export function rotationStepOf(state: RotationState, version: number, now: Date): RotationStep {
  const current = periodInProgress(state, now);
  const next = nextChange(state);
  return {
    state: 'active',
    version,
    nextChangeAt: next.at.toISOString(),
    current: current ? { agent: current.agentId, position: current.position + 1, of: current.of, until: state.coveredUntil!.toISOString() } : null,
    next: { agent: next.schedule.agentIds[next.segment.position], position: next.segment.position + 1, of: next.schedule.agentIds.length },
  };
}

/** The row's period in progress, the agent's, ended by `now`, and the next one, in progress at `now`, is the same agent's by the schedule. */
export function continuesWithSameAgent(row: RotationRow, agentPk: string, now: Date): boolean {
  const current = currentOf(row);
  if (!current || current.agentPk !== agentPk || !row.coveredUntil || row.coveredUntil > now) return false;
  const change = nextChange({ schedule: scheduleOf(row), pending: pendingOf(row), coveredUntil: row.coveredUntil });
  return change.at.getTime() === row.coveredUntil.getTime() && change.segment.end > now && change.schedule.agentIds[change.segment.position] === current.agentId;
}

/**
 * A deleted agent taken out of a rotation: it goes on with the others, counted from the same
 * `starts_at`; the period in progress, when the agent held it, is handed out again at once. Left with
 * no agent, it stops; a replacement waiting for its time loses the agent too, dropped when left empty.
 */
export function withoutAgent(row: RotationRow, agent: { id: string; pk: string }, now: Date) {
  const agentIds = row.agentIds.filter((id) => id !== agent.id);
  if (agentIds.length === 0) return { stopped: true as const };
  const pending = pendingOf(row);
  const pendingIds = pending?.agentIds.filter((id) => id !== agent.id) ?? [];
  const current = currentOf(row);
  const heldNow = current !== null && current.agentPk === agent.pk && row.coveredUntil !== null && row.coveredUntil > now;
  return { stopped: false as const, agentIds, pending: pending && pendingIds.length > 0 ? { ...pending, agentIds: pendingIds } : null, heldNow };
}

/**
 * Why periods from `at` to `until` were not handed out: no worker was up then, or one was and the
 * step came too late (its task waited behind other work, or the database was out of reach).
 */
function missedReason(at: Date, until: Date, now: Date, { asOf, workerSince }: StepClock): string {
  const ended = `the periods that ended in between were not handed out`;
  if (!workerSince || workerSince >= until) return `No worker ran from ${at.toISOString()} to ${until.toISOString()}; ${ended}`;
  const late = `the rotation's step did not run until ${now.toISOString()}${asOf ? ` (its workflow task ran at ${asOf.toISOString()})` : ''}`;
  const before = workerSince <= at ? `A worker was running from ${at.toISOString()} to ${until.toISOString()}, but ${late}` : `No worker ran from ${at.toISOString()} to ${workerSince.toISOString()}, and then ${late}`;
  return `${before}; ${ended}`;
}

/** When whole periods ended while nobody handed them out: where the first one still worth handing out starts. */
function missedPeriodsEnd(at: Date, segment: Segment, schedule: Schedule, pending: Schedule | null, now: Date): Date | null {
  const inProgressStart = periodStartAt(schedule, now);
  if (inProgressStart > at && (!pending || inProgressStart <= pending.effectiveAt)) return inProgressStart;
  // The schedule in force ends (replaced) before now: its last piece is gone too.
  return segment.end <= now ? segment.end : null;
}
