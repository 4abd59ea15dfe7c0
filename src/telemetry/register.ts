import { basename } from 'node:path';
import { startTracing } from './tracing';

/*
 * Imported first by each process's entry point (src/api/main.ts, src/worker/main.ts, src/stack.ts):
 * tracing must start before express and pg are loaded. Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set.
 */
const entry = basename(process.argv[1] ?? '').replace(/\.[jt]s$/, '');
const role = entry === 'main' ? basename(require.main?.path ?? '') : entry;
try {
  startTracing({ serviceName: `crm-messaging-${role === 'api' || role === 'worker' ? role : 'stack'}` });
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
