import { DefaultLogger, Runtime } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createProvider } from './activities/providers';
import { createApp } from './api/app';
import { listen } from './api/server';
import { loadConfig } from './config';
import { createPrisma } from './db/prisma';
import { provideDatabase } from './infra/database';
import { applyMigrations } from './infra/migrate';
import { freePort } from './infra/ports';
import { startDevServer } from './infra/temporal-server';
import { logError, logEvent } from './logger';
import { onShutdown } from './shutdown';
import { connectTemporalClient } from './temporal-connection';
import { startWorker } from './worker';

/** A development secret kept under the data directory, so tokens stay valid across restarts. */
async function developmentSecret(dataDir: string): Promise<string> {
  const file = join(dataDir, 'dev-jwt-secret');
  const existing = await readFile(file, 'utf8').catch(() => '');
  if (existing.trim()) return existing.trim();
  const secret = randomBytes(32).toString('base64url');
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** `npm start`: the whole stack on one machine; whatever the environment points at is used instead. */
async function main() {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const config = loadConfig();
  await mkdir(config.DATA_DIR, { recursive: true });
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error) => console.error(error));
  };
  onShutdown(stopAll);

  try {
    let jwtSecret = config.JWT_SECRET;
    if (!jwtSecret && !config.JWT_PUBLIC_KEY) {
      if (config.NODE_ENV === 'production') throw new Error('Set JWT_SECRET or JWT_PUBLIC_KEY: production has no default secret');
      jwtSecret = await developmentSecret(config.DATA_DIR);
    }

    const database = await provideDatabase(config.DATA_DIR);
    stops.push(database.stop);
    const applied = await applyMigrations(database.url);
    if (applied.length) console.log(`Applied migrations: ${applied.join(', ')}`);

    let temporalAddress = config.TEMPORAL_ADDRESS;
    let uiUrl: string | undefined;
    if (!temporalAddress) {
      const server = await startDevServer({
        toolsDir: join(config.DATA_DIR, 'tools'),
        dbFilename: join(config.DATA_DIR, 'temporal.sqlite'),
        port: await freePort(config.TEMPORAL_PORT),
        uiPort: await freePort(config.TEMPORAL_UI_PORT),
      });
      stops.push(server.stop);
      temporalAddress = server.address;
      uiUrl = server.uiUrl;
    }

    const prisma = createPrisma(database.url, config.DATABASE_POOL_SIZE);
    stops.push(() => prisma.$disconnect());
    const temporal = await connectTemporalClient(temporalAddress, config.TEMPORAL_NAMESPACE);
    stops.push(() => temporal.connection.close());

    const worker = await startWorker({
      address: temporalAddress,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      prisma,
      temporal,
      provider: createProvider(config, prisma),
    });
    stops.push(worker.stop);

    const app = createApp({
      prisma,
      temporal,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      auth: { secret: jwtSecret, publicKey: config.JWT_PUBLIC_KEY, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE },
      log: logError,
      onRequest: (entry) => logEvent('http.request', { ...entry }),
    });
    const http = await listen(app, config.PORT);
    stops.push(http.stop);

    console.log(`
  API          http://localhost:${http.port}/ext/v2/{businessname}
  Temporal UI  ${uiUrl ?? `(external cluster at ${temporalAddress}, namespace ${config.TEMPORAL_NAMESPACE})`}
  Temporal     ${temporalAddress}
  PostgreSQL   ${database.embedded ? `embedded, data in ${join(config.DATA_DIR, 'postgres')}` : 'DATABASE_URL'}
  Provider     ${config.MESSAGE_PROVIDER}
  Token        npm run token -- <userId>${config.JWT_SECRET ? '' : `   (development secret in ${join(config.DATA_DIR, 'dev-jwt-secret')})`}
  Ctrl-C stops everything.
`);
  } catch (error) {
    await stopAll();
    throw error;
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
