import './register-telemetry';
import { loadConfig } from '../config/index';
import { freePort } from '../net/free-port';
import { logEvent, configureLogging } from '../logger';
import { openServices, runObservedWorker } from './services';
import { onShutdown } from './shutdown';
import { stopTracing } from '../telemetry/active-tracing';
import { installTemporalRuntime } from '../worker/telemetry';
import { versionName } from '../worker/versioning';

/** The worker process of a production deployment: needs DATABASE_URL and TEMPORAL_ADDRESS. */
async function main() {
  const config = loadConfig();
  configureLogging(config);
  if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS) {
    throw new Error('npm run worker needs DATABASE_URL and TEMPORAL_ADDRESS (npm start runs everything embedded)');
  }
  const sdkMetricsAddress = `127.0.0.1:${await freePort()}`;
  installTemporalRuntime(sdkMetricsAddress);
  const services = await openServices(config);
  const worker = await runObservedWorker(services, config.WORKER_HTTP_PORT, sdkMetricsAddress);
  const { version, current } = worker.worker;
  logEvent('worker.running', { taskQueue: services.taskQueue, provider: services.provider.name, httpPort: worker.port, ...(version && { version: versionName(version), current }) });
  onShutdown(async () => {
    await worker.stop();
    await services.stop();
    await stopTracing();
  });
  await worker.done;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
