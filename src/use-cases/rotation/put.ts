import type { Client as TemporalClient } from '@temporalio/client';
import type { Prisma } from '../../db/prisma';
import { findRotation } from '../../db/rotations';
import { refuseWhileKnownDown } from '../../starters/availability';
import { applyRotation } from '../../starters/rotation-workflow';
import { afterAssignmentStarted } from '../assignments/after-change';
import { Invalid, NotFound } from '../errors';
import type { Scope } from '../../db/scope';
import { RESOURCE_ID_PATTERN } from '../input/validation';
import { parseRotationRequest } from './request';
import { putRotation } from './store';
import { rotationView } from '../../views/rotation';

/** How long a PUT waits for the client's run to apply the rotation, so its answer shows the period handed out. */
export const DEFAULT_ROTATION_APPLY_WAIT_MS = 5_000;

export interface RotationDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
  /** The shortest period accepted (one minute; tests go lower). */
  rotationMinPeriodMs?: number;
  rotationApplyWaitMs?: number;
  log?: (error: unknown) => void;
}

/**
 * Sets or replaces the client's rotation: the body's checks, the client (404), each agent in order
 * (400 `Agent {id} not found or not authorized`), then the row, then its clock, the client's run
 * (Update-with-Start). The answer waits a few seconds for the run to hand out what is due now; without a
 * worker it shows the rotation as stored, which the run applies when one runs.
 */
export async function putRotationRequest(deps: RotationDeps, scope: Scope, clientId: string, body: unknown) {
  const request = parseRotationRequest(body, { minPeriodMs: deps.rotationMinPeriodMs });
  if (!RESOURCE_ID_PATTERN.test(clientId)) throw new NotFound('Client not found');
  refuseWhileKnownDown(deps.temporal);
  const stored = await putRotation(deps.prisma, scope, clientId, request);
  if (stored.outcome === 'clientNotFound') throw new NotFound('Client not found');
  if (stored.outcome === 'agentNotAuthorized') throw new Invalid(`Agent ${stored.agentId} not found or not authorized`);
  const { rotation } = stored;

  // The assignment cut short by "apply now" expires at its new end once its clock re-reads the row;
  // one that missed it reads the row at its next wake-up, or the reconciler restarts it.
  if (stored.cut) await afterAssignmentStarted(deps, stored.cut).catch((error: unknown) => deps.log?.(error));
  // No worker within the wait: the row is stored, and the answer says so.
  await applyRotation(deps.temporal, deps.taskQueue, rotation, deps.rotationApplyWaitMs ?? DEFAULT_ROTATION_APPLY_WAIT_MS);
  const latest = (await findRotation(deps.prisma, rotation.clientPk, scope.ownerId)) ?? rotation;
  return { created: stored.created, view: rotationView(latest) };
}
