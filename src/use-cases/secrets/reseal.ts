import type { Prisma } from '../../db/prisma';
import { resealNumberCredentials } from '../../db/business-numbers';
import { resealSubscriptionSecrets, type ResealResult } from '../../db/webhook-subscriptions';
import { credentialsPurpose } from '../numbers/credentials';
import type { SecretBox } from '../../secrets/secret-box';

/** What a reseal did, per table holding sealed secrets. */
export interface StoredSecretsResealed {
  webhookSubscriptions: ResealResult;
  /** Businesses' carrier credentials (business_numbers.credentials). */
  numberCredentials: ResealResult;
}

/**
 * Seals every stored secret under SECRETS_KEY's first key: plain ones from before encryption at rest,
 * and those an older key sealed. The worker runs it at boot and `npm run secrets:rotate` on demand; once
 * it reports nothing unreadable, keys after the first may leave SECRETS_KEY. Each table that keeps
 * sealed secrets adds its own reseal here.
 */
export async function resealStoredSecrets(prisma: Prisma, secrets: SecretBox): Promise<StoredSecretsResealed> {
  const numberCredentials = await resealNumberCredentials(prisma, `v1:${secrets.currentKeyId}:`, (sealed, row) => {
    const purpose = credentialsPurpose(row.business, row.number);
    return secrets.seal(secrets.open(sealed, purpose), purpose);
  });
  return { webhookSubscriptions: await resealSubscriptionSecrets(prisma, secrets), numberCredentials };
}
