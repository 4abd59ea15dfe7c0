import { findAgent } from '../../db/agents';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { NotFound } from '../errors';
import { RESOURCE_ID_PATTERN } from '../input/validation';

/** The caller's agent in this business, or the same 404 whether it is missing, deleted, another's, or an impossible id. */
export async function findOwnedAgent(prisma: Prisma, scope: Scope, id: string) {
  const agent = RESOURCE_ID_PATTERN.test(id) ? await findAgent(prisma, scope, id) : null;
  if (!agent) throw new NotFound('Agent not found');
  return agent;
}
