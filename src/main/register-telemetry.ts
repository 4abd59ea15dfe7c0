import './compile-cache';
import { basename } from 'node:path';
import { tracingSettingsOf } from '../telemetry/settings';

/*
 * Imported first by each process's entry point (src/main/api.ts, src/main/worker.ts, src/main/stack.ts):
 * tracing must start before express and pg are loaded. Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set, and
 * then OpenTelemetry's SDK is not even loaded.
 */
const role = basename(process.argv[1] ?? '').replace(/\.[jt]s$/, '');
try {
  if (tracingSettingsOf().OTEL_EXPORTER_OTLP_ENDPOINT) {
    const { startTracing } = require('../telemetry/tracing') as typeof import('../telemetry/tracing');
    startTracing({ serviceName: `crm-messaging-${role === 'api' || role === 'worker' ? role : 'stack'}` });
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
