import { stopRotation } from '../../db/rotations';
import { wakeRotation } from '../../starters/rotation-workflow';
import { NotFound } from '../errors';
import type { Scope } from '../../db/scope';
import { RESOURCE_ID_PATTERN } from '../input/validation';
import type { RotationDeps } from './put';
import { rotationView } from '../../views/rotation';

/** Stops the client's rotation: no further period is handed out; the assignment in progress runs to its `dt_until`. */
export async function stopRotationRequest(deps: RotationDeps, scope: Scope, clientId: string) {
  if (!RESOURCE_ID_PATTERN.test(clientId)) throw new NotFound('Client not found');
  const stopped = await stopRotation(deps.prisma, scope, clientId);
  if (stopped.outcome === 'clientNotFound') throw new NotFound('Client not found');
  if (stopped.outcome === 'notActive') throw new NotFound('No active rotation on this client');
  const { rotation } = stopped;
  // Stopped is the answer; a run that missed the signal stops at its next boundary, where it reads the row.
  await wakeRotation(deps.temporal, rotation, deps.log);
  return rotationView(rotation);
}
