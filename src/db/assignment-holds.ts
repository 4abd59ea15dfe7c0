import { Prisma as Db } from '../generated/prisma/client';

/* holdsAt (src/domain/assignment-holds.ts) for the queries: as SQL over `assignments a`, and as a Prisma filter. */

export const holdsAtSql = (now: Date): Db.Sql => Db.sql`(a.status = 'active' AND a.dt_until > ${now})`;

export const holdingAt = (now: Date) => ({ status: 'active' as const, dtUntil: { gt: now } });
