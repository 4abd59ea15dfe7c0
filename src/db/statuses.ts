import type * as Db from '../generated/prisma/enums';
import type { AssignmentStatus, MessageStatus } from '../domain';

/*
 * The status lists live in the shared vocabulary, src/domain (workflow code cannot import Prisma); the schema's
 * enums must name exactly the same values, which these types check at compile time.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const assignmentStatusesMatchSchema: Same<AssignmentStatus, Db.AssignmentStatus> = true;
export const messageStatusesMatchSchema: Same<MessageStatus, Db.MessageStatus> = true;
