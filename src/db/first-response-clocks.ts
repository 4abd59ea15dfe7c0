import { Prisma as Db } from '../generated/prisma/client';
import { FIRST_RESPONSE_SETTING } from '../domain/first-response-clock';
import type { Prisma } from './prisma';

/*
 * The first-response clocks a client's run holds: its routing decisions whose clock runs (assigned, its
 * assignment still active, not answered, not escalated, under a policy with `first_response_within`),
 * read and taken over from the run a row of data from before one run per client names (`clock_workflow_id`).
 */

export interface OpenDecision {
  id: string;
  business: string;
  clientPk: string;
  clientId: string;
  /** The run a row of data from before one run per client names, until the client's run takes it over; null: the client's run. */
  clockWorkflowId: string | null;
}

type Row = { id: string; business: string; client_pk: string; client_id: string; clock_workflow_id: string | null };

/** firstResponseClockRuns, over `routing_decisions d`, its policy `p` and its assignment `a`. */
export const CLOCK_RUNS = Db.sql`(d.status = 'assigned' AND d.answered_at IS NULL AND d.escalated_at IS NULL AND a.status = 'active'
  AND p.settings ->> ${Db.raw(`'${FIRST_RESPONSE_SETTING}'`)} LIKE 'P%')`;

const open = (where: Db.Sql, tail: Db.Sql = Db.empty) => Db.sql`
  SELECT d.id, d.business, d.client_pk, c.id AS client_id, d.clock_workflow_id
    FROM routing_decisions d
    JOIN routing_policies p ON p.pk = d.policy_pk
    JOIN assignments a ON a.id = d.assignment_id
    JOIN clients c ON c.pk = d.client_pk
   WHERE ${CLOCK_RUNS} AND ${where}
   ${tail}`;

const decisionOf = (r: Row): OpenDecision => ({ id: r.id, business: r.business, clientPk: r.client_pk, clientId: r.client_id, clockWorkflowId: r.clock_workflow_id });

/** The client's decisions whose first-response clock runs, oldest first. */
export async function openDecisionsOfClient(prisma: Prisma, clientPk: string): Promise<OpenDecision[]> {
  const rows = await prisma.$queryRaw<Row[]>(open(Db.sql`d.client_pk = ${clientPk}::uuid`, Db.sql`ORDER BY d.decided_at, d.id`));
  return rows.map(decisionOf);
}

/** The decisions' clocks pass to the client's run: no row names another run any more. */
export async function takeOverDecisionClocks(prisma: Prisma, ids: string[]): Promise<void> {
  if (ids.length > 0) await prisma.routingDecision.updateMany({ where: { id: { in: ids }, clockWorkflowId: { not: null } }, data: { clockWorkflowId: null } });
}

/** The reconciler's page of running clocks (of one business if given), by id after `afterId`, unchanged since `before`. */
export async function openDecisionsBefore(prisma: Prisma, filter: { before: Date; business?: string }, afterId: string | undefined, take: number): Promise<OpenDecision[]> {
  const where = Db.sql`d.updated_at < ${filter.before} ${filter.business ? Db.sql`AND d.business = ${filter.business}` : Db.empty} ${afterId ? Db.sql`AND d.id > ${afterId}::uuid` : Db.empty}`;
  const rows = await prisma.$queryRaw<Row[]>(open(where, Db.sql`ORDER BY d.id LIMIT ${take}`));
  return rows.map(decisionOf);
}
