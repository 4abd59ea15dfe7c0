import type { AssignmentExpiryInput } from './assignments';
import type { Schedule } from './rotation-schedule';

/*
 * What a `rotations` row keeps beside its columns, read back: the schedule in force, a replacement
 * waiting for its time, the period in progress and the periods skipped. Plain data, so the database
 * layer that writes them and the view that shows them share one reading.
 */

/** The columns these read (a Prisma `Rotation` row has them). */
export interface RotationColumns {
  agentIds: string[];
  period: string;
  periodMs: bigint;
  startsAt: Date;
  effectiveAt: Date;
  notes: string | null;
  pending: unknown;
  current: unknown;
  skipped: unknown;
}

/** The period in progress as the row keeps it; `position` is 0-based into the agent list of its schedule. */
export interface CurrentPeriod {
  agentId: string;
  agentPk: string;
  position: number;
  of: number;
  from: string;
  workflowId: string;
  expiry: AssignmentExpiryInput;
}

/** A period (or part of one) not handed to its agent, and why. */
export interface SkippedPeriod {
  at: string;
  until: string;
  /** 0-based; null for periods no worker was there to hand out. */
  position: number | null;
  agent: string | null;
  reason: string;
}

export function scheduleOf(row: RotationColumns): Schedule {
  return {
    agentIds: row.agentIds,
    period: row.period,
    periodMs: Number(row.periodMs),
    startsAt: row.startsAt,
    effectiveAt: row.effectiveAt,
    notes: row.notes,
  };
}

/** The `pending` column: a schedule with its dates as ISO strings. */
export type PendingJson = { agentIds: string[]; period: string; periodMs: number; startsAt: string; effectiveAt: string; notes: string | null };

export function pendingOf(row: RotationColumns): Schedule | null {
  const p = row.pending as PendingJson | null;
  return p && { ...p, startsAt: new Date(p.startsAt), effectiveAt: new Date(p.effectiveAt) };
}

export const pendingJson = (s: Schedule): PendingJson => ({ ...s, startsAt: s.startsAt.toISOString(), effectiveAt: s.effectiveAt.toISOString() });

export const currentOf = (row: Pick<RotationColumns, 'current'>) => row.current as CurrentPeriod | null;
/** The period in force at `now`: the current one of an active rotation whose covered time has not run out. */
export const periodInForce = (row: Pick<RotationColumns, 'current'> & { status: string; coveredUntil: Date | null }, now: Date): CurrentPeriod | null =>
  row.status === 'active' && row.coveredUntil !== null && row.coveredUntil > now ? currentOf(row) : null;
export const skippedOf = (row: RotationColumns) => row.skipped as SkippedPeriod[];
