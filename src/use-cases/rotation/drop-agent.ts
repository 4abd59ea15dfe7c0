import type { Prisma as Db } from '../../generated/prisma/client';
import type { NewEvent } from '../../db/events';
import { findRotationByKey, lockRotationsNaming, rotationEvent, updateRotation, type RotationWithClient } from '../../db/rotations';
import type { Scope } from '../../db/scope';
import { withoutAgent } from '../../domain/rotation-advance';

/**
 * Takes a deleted agent out of the owner's active rotations, inside the caller's transaction
 * (src/domain/rotation-advance.ts `withoutAgent` says how each goes on). A rotation left with no agent
 * is stopped (`rotation.stopped`, reason `agent_deleted`). Returns the rotations changed, to wake their workflows.
 */
export async function dropAgentFromRotations(tx: Db.TransactionClient, scope: Scope, agent: { id: string; pk: string }, now: Date, events: NewEvent[]): Promise<RotationWithClient[]> {
  const changed: RotationWithClient[] = [];
  for (const key of await lockRotationsNaming(tx, scope, agent.id)) {
    const row = await findRotationByKey(tx, key);
    const rest = withoutAgent(row, agent, now);
    const updated = await updateRotation(tx, key, {
      ...(rest.stopped
        ? { status: 'stopped', pending: null, stopped: { at: now, by: 'agent_deleted' } }
        : { agentIds: rest.agentIds, pending: rest.pending, ...(rest.heldNow && { current: null, coveredUntil: now }) }),
      newVersion: true,
    });
    if (updated.status === 'stopped') events.push(rotationEvent('rotation.stopped', updated, 'agent_deleted'));
    changed.push(updated);
  }
  return changed;
}
