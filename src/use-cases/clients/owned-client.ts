import { findClient } from '../../db/clients';
import type { Prisma } from '../../db/prisma';
import { NotFound } from '../errors';
import type { Scope } from '../../db/scope';
import { RESOURCE_ID_PATTERN } from '../input/validation';

/** The caller's client in this business, or the same 404 whether it is missing, another's, or an impossible id. */
export async function findOwnedClient(prisma: Prisma, scope: Scope, id: string) {
  const client = RESOURCE_ID_PATTERN.test(id) ? await findClient(prisma, scope, id) : null;
  if (!client) throw new NotFound('Client not found');
  return client;
}
