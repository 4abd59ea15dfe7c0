import { Prisma as Db } from '../generated/prisma/client';
import { EMPTY_STRATEGY_STATE, type PolicySettings, type StrategyState } from '../domain';
import type { Prisma } from './prisma';
import type { Scope } from './scope';

/* Every change of `routing_policies`: a policy's versions and its strategy's memory. */

type Tx = Db.TransactionClient;
export type PolicyRow = Awaited<ReturnType<typeof findPolicy>> & {};

/** The settings in one key order (PostgreSQL's jsonb keeps its own), to compare two versions. */
const canonical = (value: object) => JSON.stringify(Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b))));
const sameSettings = (a: Db.JsonValue, b: PolicySettings) => canonical(a as object) === canonical(b);

export type PutPolicyOutcome = { outcome: 'put'; policy: PolicyRow; changed: boolean } | { outcome: 'unownedRepliesTaken'; by: string };

/**
 * Creates or changes the caller's policy. A change of any setting is a new version; the same settings
 * again keep the version. The strategy's memory is kept across versions (a new weight starts from it).
 * A policy routing unowned replies is refused while another of the owner's does: the owner's advisory
 * lock makes that check and the write one step, so two concurrent PUTs cannot both set it.
 */
export async function putPolicy(prisma: Prisma, scope: Scope, id: string, settings: PolicySettings): Promise<PutPolicyOutcome> {
  return prisma.$transaction(async (tx) => {
    if (settings.route_unowned_replies) {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`routing-unowned-replies/${scope.business}/${scope.ownerId}`}, 0))`;
      const other = await unownedRepliesPolicy(tx, scope);
      if (other && other.id !== id) return { outcome: 'unownedRepliesTaken', by: other.id };
    }
    const existing = await tx.routingPolicy.findUnique({ where: { business_ownerId_id: { ...scope, id } } });
    if (!existing) {
      const created = await tx.routingPolicy.create({ data: { ...scope, id, settings: settings as unknown as Db.InputJsonObject } });
      return { outcome: 'put', policy: created, changed: true };
    }
    if (sameSettings(existing.settings, settings)) return { outcome: 'put', policy: existing, changed: false };
    const updated = await tx.routingPolicy.update({
      where: { pk: existing.pk, version: existing.version },
      data: { settings: settings as unknown as Db.InputJsonObject, version: { increment: 1 } },
    });
    return { outcome: 'put', policy: updated, changed: true };
  });
}

export function findPolicy(prisma: Prisma | Tx, scope: Scope, id: string) {
  return prisma.routingPolicy.findUnique({ where: { business_ownerId_id: { ...scope, id } } });
}

export function listPolicies(prisma: Prisma, scope: Scope) {
  return prisma.routingPolicy.findMany({ where: scope, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** Locks the policy's row until the transaction ends: one route or drain of a policy at a time. Null when gone. */
export async function lockPolicy(tx: Tx, pk: string) {
  const rows = await tx.$queryRaw<{ pk: string }[]>`SELECT pk FROM routing_policies WHERE pk = ${pk}::uuid FOR UPDATE`;
  return rows.length === 0 ? null : tx.routingPolicy.findUnique({ where: { pk } });
}

export const settingsOf = (policy: { settings: Db.JsonValue }) => policy.settings as unknown as PolicySettings;
export const strategyStateOf = (policy: { strategyState: Db.JsonValue }) => ({ ...EMPTY_STRATEGY_STATE, ...(policy.strategyState as object) }) as StrategyState;

export async function saveStrategyState(tx: Tx, pk: string, state: StrategyState): Promise<void> {
  await tx.routingPolicy.update({ where: { pk }, data: { strategyState: state as unknown as Db.InputJsonObject } });
}

/** The owner's policy that routes replies from clients nobody holds (at most one; see putPolicy's check), or null. */
export function unownedRepliesPolicy(prisma: Prisma | Tx, scope: Scope) {
  return prisma.routingPolicy.findFirst({ where: { ...scope, settings: { path: ['route_unowned_replies'], equals: true } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** The owner's policies that route by this team, in key order (the order their locks are taken in). */
export function policiesOfTeam(tx: Tx, scope: Scope, teamId: string) {
  return tx.routingPolicy.findMany({ where: { ...scope, settings: { path: ['team'], equals: teamId } }, orderBy: { pk: 'asc' } });
}

/** Deletes the policy's row (its decisions go with it); false when it was gone already. */
export async function deletePolicyRow(tx: Tx, pk: string): Promise<boolean> {
  return (await tx.routingPolicy.deleteMany({ where: { pk } })).count > 0;
}
