import { updateClient } from '../../db/clients';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { NotFound, Invalid } from '../errors';
import { parseBody } from '../input/validation';
import { ClientChanges } from './contract';
import { findOwnedClient } from './owned-client';

/**
 * `PATCH /clients/{_id}`, a JSON merge patch of name, phone and time zone. Messages already accepted
 * keep the phone they were accepted with; later ones take the new one.
 */
export async function updateClientRequest(prisma: Prisma, scope: Scope, clientId: string, body: unknown) {
  const client = await findOwnedClient(prisma, scope, clientId);
  const patch = parseBody(ClientChanges, body);
  if (patch._id !== undefined && patch._id !== client.id) throw new Invalid('Invalid _id: a client\'s id cannot be changed');
  // Which fields the patch names: parsing makes an absent name null, as on creation.
  const names = (field: string) => typeof body === 'object' && body !== null && Object.hasOwn(body, field);
  const changes = {
    ...(names('name') && { name: patch.name }),
    ...(names('phone') && { phone: patch.phone ?? null }),
    ...(names('timezone') && { timezone: patch.timezone ?? null }),
  };
  const updated = await updateClient(prisma, client.pk, changes);
  if (!updated) throw new NotFound('Client not found');
  return updated;
}
