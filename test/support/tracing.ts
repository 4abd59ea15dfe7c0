import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { startTracing } from '../../src/telemetry/tracing';

/*
 * Import this first in a suite: it starts the process's tracing into memory before express and pg
 * load, as src/main/register-telemetry.ts does for the processes.
 */
export const spans = new InMemorySpanExporter();
export const tracing = startTracing({ processor: new SimpleSpanProcessor({ exporter: spans }), serviceName: 'crm-messaging-test' })!;

// Jest loads modules through its own registry, which the SDK's require hook never sees; so http and pg,
// which the processes get patched as they load, are patched here by hand: the same instrumentations'
// patches on the suite's copies of the modules.
function versionOf(name: string): string {
  if (['http', 'https'].includes(name)) return process.versions.node;
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
}
for (const instrumentation of [tracing.instrumentations.http, tracing.instrumentations.pg]) {
  for (const definition of instrumentation.getModuleDefinitions()) definition.patch?.(require(definition.name), versionOf(definition.name));
}
