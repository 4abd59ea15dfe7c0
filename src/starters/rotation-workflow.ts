import type { Client as TemporalClient } from '@temporalio/client';
import { clientWorkflowId } from '../domain';
import { applyRotationThroughClientRun, tellClientRun, type ClientKeys } from './client-workflow';

/* A rotation's clock is its client's run (src/starters/client-workflow.ts). */

/** A rotation row as the paths that change it hold it: whose run holds its clock (`workflowId`: a run of data from before one run per client, until the client's run takes it over; null: the client's run). */
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
 * Tells the client's run to re-read the rotation's row (after a stop, or an agent taken out); it takes
 * the rotation over if another run's id is still on the row. Best effort: the row already holds the
 * answer, and a run that missed it reads the row at its next boundary.
 */
export async function wakeRotation(temporal: TemporalClient, row: RotationRef, log?: (error: unknown) => void): Promise<void> {
  await tellClientRun(temporal, clientOf(row), ['rotations'], log);
}
