import type { Prisma as Db } from '../generated/prisma/client';
import type { Prisma } from './prisma';
import type { Scope } from './scope';
import type { SecretBox } from '../secrets/secret-box';
import { previousSecretSigns } from '../domain/webhook-secrets';

/*
 * Every change of a `webhook_subscriptions` row: created by its owner, its secret rotated (the previous
 * one keeps signing until `previous_secret_expires_at`), disabled when its receiver answers 410 Gone,
 * deleted by its owner (with its deliveries), its secrets resealed under the current SECRETS_KEY.
 * `secret` and `previous_secret` hold the secrets sealed (SecretBox); rows from before sealing hold them
 * plain until the worker's boot or `npm run secrets:rotate` reseals them, and are read as they are.
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

/** What the sealed secrets are bound to: a value sealed for another purpose does not open here. */
export const WEBHOOK_SECRET_PURPOSE = 'webhook-secret';

/**
 * Creates the subscription, its secret sealed, unless its owner already has `max` in all its businesses
 * together (null then). The owner's advisory lock makes the count and the insert one step, so requests
 * sent at once cannot pass the cap together.
 */
export function insertSubscriptionBelowCap(prisma: Prisma, secrets: SecretBox, scope: Scope, subscription: NewSubscription, max: number) {
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`webhook-subscriptions/${scope.ownerId}`}, 0))`;
    if ((await tx.webhookSubscription.count({ where: { ownerId: scope.ownerId } })) >= max) return null;
    return tx.webhookSubscription.create({ data: { ...scope, ...subscription, secret: secrets.seal(subscription.secret, WEBHOOK_SECRET_PURPOSE) } });
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
export async function rotateSubscriptionSecret(prisma: Prisma, secrets: SecretBox, scope: Scope, id: string, secret: string, now = new Date()) {
  const expiresAt = new Date(now.getTime() + PREVIOUS_SECRET_LIFETIME_MS);
  const rotated = await prisma.$executeRaw`
    UPDATE webhook_subscriptions
       SET previous_secret = secret, secret = ${secrets.seal(secret, WEBHOOK_SECRET_PURPOSE)}, previous_secret_expires_at = ${expiresAt}, updated_at = ${now}
     WHERE id = ${id}::uuid AND business = ${scope.business} AND owner_id = ${scope.ownerId}`;
  return rotated > 0 ? findSubscription(prisma, scope, id) : null;
}

/** active → disabled (the receiver said 410 Gone): no new deliveries are created for it. */
export async function disableSubscription(tx: Tx | Prisma, id: string, reason: string, now = new Date()): Promise<void> {
  await tx.webhookSubscription.updateMany({ where: { id, disabledAt: null }, data: { disabledAt: now, disabledReason: reason } });
}

type StoredSecrets = { secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null };

/** A stored secret in the clear: opened when sealed, as it is when written before sealing. Throws UnreadableSecret. */
const openSecret = (secrets: SecretBox, stored: string) => (secrets.isSealed(stored) ? secrets.open(stored, WEBHOOK_SECRET_PURPOSE) : stored);

/** The secrets that sign now, in the clear: the current one, and the previous one until it expires. */
export function signingSecrets(subscription: StoredSecrets, secrets: SecretBox, now = new Date()): string[] {
  const current = openSecret(secrets, subscription.secret);
  return previousSecretSigns(subscription, now) ? [current, openSecret(secrets, subscription.previousSecret!)] : [current];
}

export interface ResealResult {
  /** Rows whose secrets were sealed anew under the current key (or, plain, sealed for the first time). */
  resealed: number;
  /** Rows left as they were: sealed under a key SECRETS_KEY no longer has, or altered. Never their secrets. */
  unreadable: { id: string; reason: string }[];
}

const RESEAL_PAGE = 200;

/**
 * Seals every secret not yet sealed under the current key: plain ones from before sealing, and those an
 * older key sealed. A previous secret past its expiry signs nothing any more and is dropped. Each row is
 * a compare-and-set on the values read, so a rotation by its owner meanwhile wins, and running this in
 * several processes at once is harmless. `updated_at` is left alone: nothing the owner sees has changed.
 */
export async function resealSubscriptionSecrets(prisma: Prisma, secrets: SecretBox, now = new Date()): Promise<ResealResult> {
  const prefix = `v1:${secrets.currentKeyId}:`;
  const result: ResealResult = { resealed: 0, unreadable: [] };
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const page = await prisma.$queryRaw<{ id: string; secret: string; previous_secret: string | null; previous_secret_expires_at: Date | null }[]>`
      SELECT id::text, secret, previous_secret, previous_secret_expires_at FROM webhook_subscriptions
       WHERE id > ${after}::uuid
         AND (NOT starts_with(secret, ${prefix}) OR (previous_secret IS NOT NULL AND NOT starts_with(previous_secret, ${prefix})))
       ORDER BY id LIMIT ${RESEAL_PAGE}`;
    for (const row of page) {
      let secret: string;
      let previous: string | null;
      try {
        secret = secrets.isCurrent(row.secret) ? row.secret : secrets.seal(openSecret(secrets, row.secret), WEBHOOK_SECRET_PURPOSE);
        if (!previousSecretSigns({ previousSecret: row.previous_secret, previousSecretExpiresAt: row.previous_secret_expires_at }, now)) previous = null;
        else previous = secrets.isCurrent(row.previous_secret!) ? row.previous_secret : secrets.seal(openSecret(secrets, row.previous_secret!), WEBHOOK_SECRET_PURPOSE);
      } catch (error) {
        result.unreadable.push({ id: row.id, reason: (error as Error).message });
        continue;
      }
      result.resealed += await prisma.$executeRaw`
        UPDATE webhook_subscriptions SET secret = ${secret}, previous_secret = ${previous}
         WHERE id = ${row.id}::uuid AND secret = ${row.secret} AND previous_secret IS NOT DISTINCT FROM ${row.previous_secret}`;
    }
    if (page.length < RESEAL_PAGE) break;
    after = page[page.length - 1].id;
  }
  return result;
}
