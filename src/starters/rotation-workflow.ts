import type { Client as TemporalClient } from '@temporalio/client';
import { clientWorkflowId, rotationChangedSignal } from '../domain';
import { applyRotationThroughClientRun, tellClientRun, type ClientKeys } from './client-workflow';

/*
 * A rotation's clock is its client's run (src/starters/client-workflow.ts). Nothing starts a `rotation`
 * run: one still open at an upgrade runs until it ends, or until the client's run takes its rotation
 * over and tells it to look again (docs/design.md, "Upgrading to one run per client").
 */

/** A rotation row as the paths that change it hold it: whose run holds its clock (`workflowId`: a `rotation` run's; null: the client's run). */
export interface RotationRef {
  business: string;
  clientPk: string;
  key: string;
  workflowId: string | null;
  client: { id: string };
}

const clientOf = (row: RotationRef): ClientKeys => ({ business: row.business, clientId: row.client.id, clientPk: row.clientPk });

/** The id of the run that holds the rotation's clock, as the rotation's view shows it. */
export const rotationClockWorkflowId = (row: RotationRef): string => row.workflowId ?? clientWorkflowId(clientOf(row));

/**
 * A PUT stored `version` of the rotation: its client's run (started if none is open) hands out what is
 * due now, and this waits up to `waitMs` for it. Throws only when Temporal is unavailable; a run that did
 * not answer in time applies it on its own.
 */
export async function applyRotation(temporal: TemporalClient, baseTaskQueue: string, row: RotationRef & { version: number }, waitMs: number): Promise<void> {
  await applyRotationThroughClientRun(temporal, baseTaskQueue, clientOf(row), { rotationKey: row.key, version: row.version }, waitMs);
}

/**
 * Tells the run that holds the rotation's clock to re-read its row (after a stop, or an agent taken out).
 * Best effort: the row already holds the answer, and a run that missed it reads the row at its next boundary.
 */
export async function wakeRotation(temporal: TemporalClient, row: RotationRef, log?: (error: unknown) => void): Promise<void> {
  if (!row.workflowId) return tellClientRun(temporal, clientOf(row), ['rotations'], log);
  await releaseRotationRun(temporal, row.workflowId, log);
}

/** Tells a `rotation` run to look at its row again: the client's run took it over, and it ends. */
export async function releaseRotationRun(temporal: TemporalClient, workflowId: string, log?: (error: unknown) => void): Promise<void> {
  try {
    await temporal.workflow.getHandle(workflowId).signal(rotationChangedSignal);
  } catch (error) {
    if ((error as Error).name !== 'WorkflowNotFoundError') log?.(error);
  }
}
