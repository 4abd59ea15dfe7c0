import { loadConfig } from '../config/index';
import { createPrisma } from '../db/prisma';
import type { OpenDatabase } from '../config/database';
import { secretBoxOf } from '../secrets/configured';
import { resealStoredSecrets } from '../use-cases/secrets/reseal';

/**
 * `npm run secrets:rotate` (and `node dist/main/secrets-rotate.js` in the image): seals every stored
 * secret under SECRETS_KEY's first key now (the worker does the same at boot). Prints counts and the ids
 * of rows it cannot open, never a secret; exits 1 while any row is unreadable, so the old key is not
 * removed from SECRETS_KEY too early.
 */
export async function secretsRotateCommand(openDatabase: OpenDatabase): Promise<number> {
  const config = loadConfig();
  const secrets = await secretBoxOf(config);
  const database = await openDatabase(config);
  const prisma = createPrisma(database.url, 2);
  try {
    const { webhookSubscriptions, numberCredentials } = await resealStoredSecrets(prisma, secrets);
    console.log(`webhook subscriptions: ${webhookSubscriptions.resealed} resealed under key ${secrets.currentKeyId}, ${webhookSubscriptions.unreadable.length} unreadable`);
    for (const row of webhookSubscriptions.unreadable) console.error(`  webhook subscription ${row.id}: ${row.reason}`);
    console.log(`business numbers' carrier credentials: ${numberCredentials.resealed} resealed under key ${secrets.currentKeyId}, ${numberCredentials.unreadable.length} unreadable`);
    for (const row of numberCredentials.unreadable) console.error(`  business number ${row.id}: ${row.reason}`);
    return webhookSubscriptions.unreadable.length || numberCredentials.unreadable.length ? 1 : 0;
  } finally {
    await prisma.$disconnect();
    await database.stop();
  }
}
