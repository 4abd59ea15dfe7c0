import { listClientAssignments } from '../../db/assignments';
import type { Prisma } from '../../db/prisma';
import { ASSIGNMENT_STATUSES } from '../../domain';
import { findOwnedClient } from '../clients/owned-client';
import { parseQuery } from '../input/page';
import { AssignmentListQuery } from './contract';
import type { Scope } from '../../db/scope';
import { assignmentView } from '../../views/assignment';

const STATUS_FILTERS = { active: ['active'], all: ASSIGNMENT_STATUSES } as const;

/** The client's assignments: `active` (absent means active) or `all`, with expired and unassigned ones. */
export async function listAssignments(prisma: Prisma, scope: Scope, clientId: string, rawStatus: unknown) {
  const { status } = parseQuery(AssignmentListQuery, { status: rawStatus });
  const client = await findOwnedClient(prisma, scope, clientId);
  const assignments = await listClientAssignments(prisma, client.pk, STATUS_FILTERS[status]);
  return { client: client.id, assignments: assignments.map(assignmentView) };
}
