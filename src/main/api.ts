import './register-telemetry';
import { authConfigOf, loadConfig } from '../config/index';
import { logEvent, configureLogging } from '../logger';
import { createApi, openServices, refuseConnectorsWithoutPublicBaseUrl } from './services';
import { onShutdown } from './shutdown';
import { stopTracing } from '../telemetry/active-tracing';
import { httpMetrics, listen, serveMetrics } from '../api';

/** The API process of a production deployment: needs DATABASE_URL, TEMPORAL_ADDRESS and a JWT key. */
async function main() {
  const config = loadConfig();
  configureLogging(config);
  const auth = authConfigOf(config);
  if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS) {
    throw new Error('npm run api needs DATABASE_URL and TEMPORAL_ADDRESS (npm start runs everything embedded)');
  }
  const services = await openServices(config);
  await refuseConnectorsWithoutPublicBaseUrl(services).catch(async (error) => {
    await services.stop();
    throw error;
  });
  const metrics = httpMetrics();
  const metricsHttp = await serveMetrics(metrics.registry, config.API_METRICS_PORT, config.API_METRICS_HOST);
  const http = await listen(createApi(services, { auth, metrics }), config.PORT, config.API_HOST ?? '0.0.0.0');
  logEvent('api.listening', { host: config.API_HOST ?? '0.0.0.0', port: http.port, metricsPort: metricsHttp.port, metricsHost: config.API_METRICS_HOST });
  onShutdown(async () => {
    await http.stop();
    await metricsHttp.stop();
    await services.stop();
    await stopTracing();
  });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
