import { findAgents } from '../../db/agents';
import { cutRotationAssignment } from '../../db/assignments';
import { findClient } from '../../db/clients';
import { withEvents, type NewEvent } from '../../db/events';
import type { Prisma } from '../../db/prisma';
import { createRotation, findRotation, findRotationByKey, lockClientForRotation, updateRotation, type RotationWithClient } from '../../db/rotations';
import type { Scope } from '../../db/scope';
import type { AssignmentExpiryInput } from '../../domain';
import { replacementOf, requestedSchedule, statesRotationInForce, type RotationRequestData } from '../../domain/rotation-advance';

export type PutRotationOutcome =
  | { outcome: 'clientNotFound' }
  | { outcome: 'agentNotAuthorized'; agentId: string }
  /** `cut`: the assignment of the period in progress, cut short by "apply now". */
  | { outcome: 'stored'; created: boolean; changed: boolean; rotation: RotationWithClient; cut: { workflowId: string; expiry: AssignmentExpiryInput } | null };

/**
 * Sets the rotation (created) or replaces it, in one transaction (src/domain/rotation-advance.ts says
 * how a replacement takes over). A PUT that states the rotation already in force changes nothing.
 */
export function putRotation(prisma: Prisma, scope: Scope, clientId: string, request: RotationRequestData, now = new Date()): Promise<PutRotationOutcome> {
  return withEvents(prisma, async (tx, record) => {
    const client = await findClient(tx, scope, clientId);
    if (!client) return { outcome: 'clientNotFound' };
    const owned = new Set((await findAgents(tx, scope, request.agentIds)).map((a) => a.id));
    const missing = request.agentIds.find((id) => !owned.has(id));
    if (missing !== undefined) return { outcome: 'agentNotAuthorized', agentId: missing };

    await lockClientForRotation(tx, client.pk);
    const existing = await findRotation(tx, client.pk, scope.ownerId);
    const schedule = requestedSchedule(request, now, existing?.coveredUntil ?? null);
    if (!existing) return { outcome: 'stored', created: true, changed: true, rotation: await createRotation(tx, client.pk, scope, schedule), cut: null };
    if (statesRotationInForce(existing, request)) return { outcome: 'stored', created: false, changed: false, rotation: await findRotationByKey(tx, existing.key), cut: null };

    const { coveredUntil, current, cut, keepInForce } = replacementOf(existing, schedule, now);
    const events: NewEvent[] = [];
    const cutWorkflowId = cut && (await cutRotationAssignment(tx, { clientPk: client.pk, ...cut }, events));
    const rotation = await updateRotation(tx, existing.key, {
      ...(keepInForce ? { pending: schedule } : { schedule, pending: null }),
      status: 'active',
      newVersion: true,
      coveredUntil,
      current,
      stopped: null,
    });
    // Last, once every row it changes is locked (see withEvents).
    for (const event of events) await record(event);
    return { outcome: 'stored', created: false, changed: true, rotation, cut: cutWorkflowId && current ? { workflowId: cutWorkflowId, expiry: current.expiry } : null };
  });
}
