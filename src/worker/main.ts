import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createProvider } from '../activities/providers';
import { loadConfig } from '../config';
import { createPrisma } from '../db/prisma';
import { logEvent } from '../logger';
import { onShutdown } from '../shutdown';
import { connectTemporalClient } from '../temporal-connection';
import { startWorker } from './index';

/** The worker process of a production deployment: needs DATABASE_URL and TEMPORAL_ADDRESS. */
async function main() {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const config = loadConfig();
  if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS) {
    throw new Error('npm run worker needs DATABASE_URL and TEMPORAL_ADDRESS (npm start runs everything embedded)');
  }
  const prisma = createPrisma(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
  const temporal = await connectTemporalClient(config.TEMPORAL_ADDRESS, config.TEMPORAL_NAMESPACE);
  const worker = await startWorker({
    address: config.TEMPORAL_ADDRESS,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    prisma,
    temporal,
    provider: createProvider(config, prisma),
  });
  logEvent('worker.running', { taskQueue: config.TEMPORAL_TASK_QUEUE, provider: config.MESSAGE_PROVIDER });
  onShutdown(async () => {
    await worker.stop();
    await temporal.connection.close();
    await prisma.$disconnect();
  });
  await worker.done;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
