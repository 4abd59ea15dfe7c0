import type { Prisma as Db } from '../generated/prisma/client';
import type { Prisma } from './prisma';
import type { Scope } from './scope';

/*
 * Every change of a `webhook_subscriptions` row: created by its owner, its secret rotated (the previous
 * one keeps signing until `previous_secret_expires_at`), disabled when its receiver answers 410 Gone,
 * deleted by its owner (with its deliveries).
 */

type Tx = Db.TransactionClient;

/** How long the secret a rotation replaced keeps signing beside the new one. */
export const PREVIOUS_SECRET_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface NewSubscription {
  url: string;
  events: string[];
  description: string | null;
  secret: string;
}

/**
 * Creates the subscription unless its owner already has `max` in all its businesses together (null
 * then). The owner's advisory lock makes the count and the insert one step, so requests sent at once
 * cannot pass the cap together.
 */
export function insertSubscriptionBelowCap(prisma: Prisma, scope: Scope, subscription: NewSubscription, max: number) {
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`webhook-subscriptions/${scope.ownerId}`}, 0))`;
    if ((await tx.webhookSubscription.count({ where: { ownerId: scope.ownerId } })) >= max) return null;
    return tx.webhookSubscription.create({ data: { ...scope, ...subscription } });
  });
}

export function listSubscriptions(prisma: Prisma, scope: Scope) {
  return prisma.webhookSubscription.findMany({ where: scope, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

export function findSubscription(prisma: Prisma, scope: Scope, id: string) {
  return prisma.webhookSubscription.findFirst({ where: { ...scope, id } });
}

/** Deletes the owner's subscription and its deliveries; false when there was none. */
export async function deleteSubscription(prisma: Prisma, scope: Scope, id: string): Promise<boolean> {
  const deleted = await prisma.webhookSubscription.deleteMany({ where: { ...scope, id } });
  return deleted.count > 0;
}

/**
 * The new secret signs from now on; the one it replaces keeps signing beside it for 24 h. A rotation
 * within those 24 h drops the older one. One statement, so two concurrent rotations cannot lose a secret
 * that either answer showed.
 */
export async function rotateSubscriptionSecret(prisma: Prisma, scope: Scope, id: string, secret: string, now = new Date()) {
  const expiresAt = new Date(now.getTime() + PREVIOUS_SECRET_LIFETIME_MS);
  const rotated = await prisma.$executeRaw`
    UPDATE webhook_subscriptions
       SET previous_secret = secret, secret = ${secret}, previous_secret_expires_at = ${expiresAt}, updated_at = ${now}
     WHERE id = ${id}::uuid AND business = ${scope.business} AND owner_id = ${scope.ownerId}`;
  return rotated > 0 ? findSubscription(prisma, scope, id) : null;
}

/** active → disabled (the receiver said 410 Gone): no new deliveries are created for it. */
export async function disableSubscription(tx: Tx | Prisma, id: string, reason: string, now = new Date()): Promise<void> {
  await tx.webhookSubscription.updateMany({ where: { id, disabledAt: null }, data: { disabledAt: now, disabledReason: reason } });
}

/** The secrets that sign now: the current one, and the previous one until it expires. */
export function signingSecrets(subscription: { secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null }, now = new Date()): string[] {
  const previousValid = subscription.previousSecret && subscription.previousSecretExpiresAt && subscription.previousSecretExpiresAt > now;
  return previousValid ? [subscription.secret, subscription.previousSecret!] : [subscription.secret];
}
