import type { Prisma } from '../../db/prisma';
import { findRotation } from '../../db/rotations';
import type { Scope } from '../../db/scope';
import { rotationView } from '../../views/rotation';
import { findOwnedClient } from '../clients/owned-client';
import { NotFound } from '../errors';

/** `GET /clients/{_id}/rotation`: the caller's rotation of its client, stopped or not. */
export async function rotationOfClient(prisma: Prisma, scope: Scope, clientId: string) {
  const client = await findOwnedClient(prisma, scope, clientId);
  const rotation = await findRotation(prisma, client.pk, scope.ownerId);
  if (!rotation) throw new NotFound('No rotation on this client');
  return rotationView(rotation);
}
