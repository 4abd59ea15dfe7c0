import type { Prisma } from '../../db/prisma';
import { resealSubscriptionSecrets, type ResealResult } from '../../db/webhook-subscriptions';
import type { SecretBox } from '../../secrets/secret-box';

/** What a reseal did, per table holding sealed secrets. */
export interface StoredSecretsResealed {
  webhookSubscriptions: ResealResult;
}

/**
 * Seals every stored secret under SECRETS_KEY's first key: plain ones from before encryption at rest,
 * and those an older key sealed. The worker runs it at boot and `npm run secrets:rotate` on demand; once
 * it reports nothing unreadable, keys after the first may leave SECRETS_KEY. Each table that keeps
 * sealed secrets adds its own reseal here.
 */
export async function resealStoredSecrets(prisma: Prisma, secrets: SecretBox): Promise<StoredSecretsResealed> {
  return { webhookSubscriptions: await resealSubscriptionSecrets(prisma, secrets) };
}
