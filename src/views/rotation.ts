import type { Rotation } from '../generated/prisma/client';
import { clientWorkflowId } from '../domain';
import { currentOf, pendingOf, scheduleOf, skippedOf } from '../domain/rotation-row';
import { nextChange } from '../domain/rotation-schedule';
import { changedBy } from './changed-by';

/**
 * `GET /clients/{_id}/rotation`: the rotation in force, the period in progress, whose the next one is
 * by the schedule and when it starts, a replacement waiting for its time, and the periods skipped.
 * Positions are 1-based into the agent list of the schedule they belong to.
 */
export function rotationView(row: Rotation & { client: { id: string } }, now = new Date()) {
  const schedule = scheduleOf(row);
  const pending = pendingOf(row);
  const current = currentOf(row);
  const inProgress = current !== null && row.coveredUntil !== null && row.coveredUntil > now;
  const next = row.status === 'active' ? nextChange({ schedule, pending, coveredUntil: row.coveredUntil }) : null;
  return {
    client: row.client.id,
    status: row.status,
    agents: schedule.agentIds,
    period: schedule.period,
    period_ms: schedule.periodMs,
    starts_at: schedule.startsAt.toISOString(),
    ds_notes: schedule.notes,
    current: inProgress
      ? { agent: current!.agentId, position: current!.position + 1, of: current!.of, from: current!.from, until: row.coveredUntil!.toISOString() }
      : null,
    next: next && {
      agent: next.schedule.agentIds[next.segment.position],
      position: next.segment.position + 1,
      of: next.schedule.agentIds.length,
      from: next.at.toISOString(),
    },
    next_change_at: next?.at.toISOString() ?? null,
    replacement: pending && {
      agents: pending.agentIds,
      period: pending.period,
      period_ms: pending.periodMs,
      starts_at: pending.startsAt.toISOString(),
      ds_notes: pending.notes,
      from: pending.effectiveAt.toISOString(),
    },
    skipped: skippedOf(row).map((s) => ({ from: s.at, until: s.until, agent: s.agent, position: s.position === null ? null : s.position + 1, reason: s.reason })),
    stopped_at: row.stoppedAt?.toISOString() ?? null,
    stopped_by: row.status === 'stopped' ? changedBy(row.stoppedBy) : null,
    version: row.version,
    // The run that holds its clock: the client's run, or a `rotation` run until the client's run takes it over.
    workflow_id: row.workflowId ?? clientWorkflowId({ business: row.business, clientId: row.client.id, clientPk: row.clientPk }),
  };
}
