import type { Prisma as Db } from '../../generated/prisma/client';
import { recordForOwner } from '../../db/assignments';
import { withEvents, type NewEvent } from '../../db/events';
import type { Prisma } from '../../db/prisma';
import { lockRotationRow, rotationsEndedWithAgent, updateRotation, type RotationWithClient } from '../../db/rotations';
import type { AssignmentExpiryInput, RotationStep } from '../../domain';
import { continuesWithSameAgent, ENDED_STEP, MAX_SKIPPED, periodInProgress, planAdvance, rotationStateOf, rotationStepOf, type StepClock } from '../../domain/rotation-advance';
import type { CurrentPeriod, SkippedPeriod } from '../../domain/rotation-row';
import type { Schedule, Segment } from '../../domain/rotation-schedule';

export type { StepClock } from '../../domain/rotation-advance';

/** A step's outcome: what the workflow is told, and the assignment of the period in progress, to follow (its expiry clock). */
export interface AdvanceOutcome {
  step: RotationStep;
  wake: { workflowId: string; expiry: AssignmentExpiryInput } | null;
}

/**
 * Hands out every period that is due at `now`, in schedule order (src/domain/rotation-advance.ts): the
 * period's agent, or when that agent was deleted or is no longer the owner's, the next one in the list
 * who can take it (the reason is kept in `skipped`). Running it again at the same time changes nothing.
 */
export function advanceRotation(prisma: Prisma, rotationKey: string, now = new Date(), clock: StepClock = {}): Promise<AdvanceOutcome> {
  return withEvents(prisma, async (tx, record) => {
    const row = await lockRotationRow(tx, rotationKey);
    if (!row) return { step: ENDED_STEP, wake: null };
    const { outcome, events } = await advanceLocked(tx, row, now, clock);
    // Last, once every row it changes is locked (see withEvents).
    for (const event of events) await record(event);
    return outcome;
  });
}

/**
 * The expiry of the assignment whose rotation period ends at `now` (or just before): when the rotation
 * gives the period that starts there to the same agent, the period is handed out here, first, so the
 * assignment is extended (one `assignment.updated`) rather than expired and created again. Null when
 * there is nothing to extend; the expiry then goes on as usual. The rotation's own step at the same
 * boundary, before or after, finds the period handed out.
 */
export async function extendIntoNextPeriod(prisma: Prisma, pair: { clientPk: string; agentPk: string }, now = new Date()): Promise<AdvanceOutcome | null> {
  for (const key of await rotationsEndedWithAgent(prisma, pair, now)) {
    const extended = await withEvents(prisma, async (tx, record) => {
      const row = await lockRotationRow(tx, key);
      if (!row || row.status !== 'active' || !continuesWithSameAgent(row, pair.agentPk, now)) return null;
      const { outcome, events } = await advanceLocked(tx, row, now, {});
      for (const event of events) await record(event);
      return outcome;
    });
    if (extended) return extended;
  }
  return null;
}

/** One step on a locked row: the periods due at `now` handed out, the row updated; the events to record last. */
async function advanceLocked(tx: Db.TransactionClient, row: RotationWithClient, now: Date, clock: StepClock): Promise<{ outcome: AdvanceOutcome; events: NewEvent[] }> {
  const events: NewEvent[] = [];
  if (row.status === 'stopped') return { outcome: { step: { ...ENDED_STEP, version: row.version }, wake: null }, events };

  const plan = planAdvance(rotationStateOf(row), now, clock);
  const state = plan.state;
  if (plan.handOut) {
    state.current = await handOut(tx, row, state.schedule, plan.handOut, state.skipped, events);
    state.coveredUntil = plan.handOut.end;
  }
  if (plan.changed) {
    const { schedule, pending, coveredUntil, current, skipped } = state;
    await updateRotation(tx, row.key, { schedule, pending, coveredUntil, current, skipped: skipped.slice(-MAX_SKIPPED) });
  }
  const inProgress = periodInProgress(state, now);
  return { outcome: { step: rotationStepOf(state, row.version, now), wake: inProgress && { workflowId: inProgress.workflowId, expiry: inProgress.expiry } }, events };
}

/** Records the segment's assignment for its agent, or the next agent in the list who can take it. */
async function handOut(tx: Db.TransactionClient, row: RotationWithClient, schedule: Schedule, segment: Segment, skipped: SkippedPeriod[], events: NewEvent[]): Promise<CurrentPeriod | null> {
  const count = schedule.agentIds.length;
  const owner = { business: row.business, ownerId: row.ownerId };
  for (let i = 0; i < count; i++) {
    const position = (segment.position + i) % count;
    const agentId = schedule.agentIds[position];
    const recorded = await recordForOwner(
      tx,
      { business: row.business, clientId: row.client.id, agents: [{ agentId, dtUntil: segment.end.toISOString() }] },
      owner,
      schedule.notes,
      { rotation: true, events },
    );
    if (recorded.outcome === 'recorded') {
      const [assignment] = recorded.assignments;
      return {
        agentId,
        agentPk: assignment.expiry.agentPk,
        position,
        of: count,
        from: segment.start.toISOString(),
        workflowId: assignment.workflowId,
        expiry: assignment.expiry,
      };
    }
    skipped.push({
      at: segment.start.toISOString(),
      until: segment.end.toISOString(),
      position,
      agent: agentId,
      reason: recorded.outcome === 'agentNotAuthorized' ? `Agent ${agentId} not found or not authorized` : 'Client not found',
    });
    if (recorded.outcome === 'clientNotFound') break;
  }
  return null;
}
