import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { ActivityInterceptorsFactory, InjectedSinks, NexusInterceptorsFactory } from '@temporalio/worker';
import { activeTracing } from './active-tracing';
import { workflowSpanProcessor } from './workflow-span-shape';

/*
 * Temporal's OpenTelemetry interceptors: the client puts the active span's context in a workflow's
 * start header, the workflow's interceptors (in the bundle, src/paths.ts) trace it and its activities,
 * and the activities' spans continue that trace in the worker. Installed only in a process that traces
 * (src/telemetry/tracing.ts starts first): otherwise the client would still send an empty trace header
 * with every start. Loaded only then, too: a process that does not trace never needs their modules.
 */

const interceptors = () => require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');

export const workflowClientTracing = (): WorkflowClientInterceptor[] => (activeTracing() ? [new (interceptors().OpenTelemetryWorkflowClientInterceptor)()] : []);

export function activityTracing(): ActivityInterceptorsFactory[] {
  if (!activeTracing()) return [];
  const { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } = interceptors();
  return [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })];
}

export function nexusTracing(): NexusInterceptorsFactory[] {
  if (!activeTracing()) return [];
  const { OpenTelemetryNexusInboundInterceptor, OpenTelemetryNexusOutboundInterceptor } = interceptors();
  return [(ctx) => ({ inbound: new OpenTelemetryNexusInboundInterceptor(ctx), outbound: new OpenTelemetryNexusOutboundInterceptor(ctx) })];
}

/**
 * The sink through which the workflow interceptors of a traced run (src/telemetry/workflow-interceptors.ts)
 * hand their spans out of the sandbox: into this process's span processor while tracing, dropped
 * otherwise (a run traced by the API it came from, on a worker that is not tracing).
 */
export function workflowSpanSinks(): InjectedSinks<OpenTelemetrySinks> {
  const tracing = activeTracing();
  if (!tracing) return { exporter: { export: { fn: () => undefined } } };
  // The exporter's types are OpenTelemetry 1.x's (its own dependency); what it calls is onEnd, with spans workflowSpanProcessor reshapes.
  const { makeWorkflowExporter } = interceptors();
  type Arguments = Parameters<typeof makeWorkflowExporter>;
  return { exporter: makeWorkflowExporter(workflowSpanProcessor(tracing.processor) as unknown as Arguments[0], tracing.resource as unknown as Arguments[1]) };
}
