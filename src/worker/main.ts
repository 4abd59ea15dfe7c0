import { DefaultLogger, Runtime } from '@temporalio/worker';
import { loadConfig } from '../config';
import { logEvent } from '../logger';
import { runWorker, openServices } from '../services';
import { onShutdown } from '../shutdown';

/** The worker process of a production deployment: needs DATABASE_URL and TEMPORAL_ADDRESS. */
async function main() {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const config = loadConfig();
  if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS) {
    throw new Error('npm run worker needs DATABASE_URL and TEMPORAL_ADDRESS (npm start runs everything embedded)');
  }
  const services = await openServices(config);
  const worker = await runWorker(services);
  logEvent('worker.running', { taskQueue: services.taskQueue, provider: services.provider.name });
  onShutdown(async () => {
    await worker.stop();
    await services.stop();
  });
  await worker.done;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
