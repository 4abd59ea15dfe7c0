import { loadConfig, requireJwtKey } from '../config';
import { createPrisma } from '../db/prisma';
import { logError, logEvent } from '../logger';
import { onShutdown } from '../shutdown';
import { connectTemporalClient } from '../temporal-connection';
import { createApp } from './app';
import { listen } from './server';

/** The API process of a production deployment: needs DATABASE_URL, TEMPORAL_ADDRESS and a JWT key. */
async function main() {
  const config = loadConfig();
  requireJwtKey(config);
  if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS) {
    throw new Error('npm run api needs DATABASE_URL and TEMPORAL_ADDRESS (npm start runs everything embedded)');
  }
  const prisma = createPrisma(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
  const temporal = await connectTemporalClient(config.TEMPORAL_ADDRESS, config.TEMPORAL_NAMESPACE);
  const app = createApp({
    prisma,
    temporal,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    auth: { secret: config.JWT_SECRET, publicKey: config.JWT_PUBLIC_KEY, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE },
    log: logError,
    onRequest: (entry) => logEvent('http.request', { ...entry }),
  });
  const http = await listen(app, config.PORT);
  logEvent('api.listening', { port: http.port });
  onShutdown(async () => {
    await http.stop();
    await temporal.connection.close();
    await prisma.$disconnect();
  });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
