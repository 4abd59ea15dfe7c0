import { listClientAssignments } from '../../db/assignments';
import type { Prisma } from '../../db/prisma';
import { ASSIGNMENT_STATUSES } from '../../domain';
import { findOwnedClient } from '../clients/owned-client';
import { Invalid } from '../errors';
import type { Scope } from '../../db/scope';
import { assignmentView } from '../../views/assignment';

const STATUS_FILTERS = { active: ['active'], all: ASSIGNMENT_STATUSES } as const;

/** The client's assignments: `active` (absent means active) or `all`, with expired and unassigned ones. */
export async function listAssignments(prisma: Prisma, scope: Scope, clientId: string, status: unknown = 'active') {
  // hasOwn, not `in`: `?status=toString` must not reach the prototype.
  if (typeof status !== 'string' || !Object.hasOwn(STATUS_FILTERS, status)) throw new Invalid('Invalid status: use active or all');
  const client = await findOwnedClient(prisma, scope, clientId);
  const assignments = await listClientAssignments(prisma, client.pk, STATUS_FILTERS[status as keyof typeof STATUS_FILTERS]);
  return { client: client.id, assignments: assignments.map(assignmentView) };
}
