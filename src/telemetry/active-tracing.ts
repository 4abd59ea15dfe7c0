import type { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import type { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import type { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';

/*
 * Whether this process traces, apart from the SDK that starts tracing (./tracing.ts): a process that
 * does not trace never loads OpenTelemetry's SDK and exporters.
 */

export interface Tracing {
  /** Where every span ends, scrubbed: the SDK's spans and the workflow spans Temporal's sink hands over. */
  processor: SpanProcessor;
  resource: Resource;
  instrumentations: { http: HttpInstrumentation; pg: PgInstrumentation; undici: UndiciInstrumentation };
  shutdown(): Promise<void>;
}

let active: Tracing | undefined;

/** This process's tracing, if it was started. */
export const activeTracing = (): Tracing | undefined => active;

export function setActiveTracing<T extends Tracing | undefined>(tracing: T): T {
  active = tracing;
  return tracing;
}

/** Sends the spans still buffered and stops tracing: the last step of a process's shutdown. */
export async function stopTracing(): Promise<void> {
  await active?.shutdown().catch(() => undefined);
}
