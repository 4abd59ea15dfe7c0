/*
 * In the workflow bundle (src/paths.ts): OpenTelemetry's workflow interceptors, for the runs whose start
 * carried a trace (an API or an activity that was tracing started them). Other runs skip them, and
 * until a traced run comes their module is not even loaded: loaded, it doubles the workflow CPU of a
 * message run (measured by replaying one history on bundles with and without it), traced or not.
 * Whether a run is traced is read from its start header, which its history keeps, so a replay decides
 * the same.
 */
import type * as OpenTelemetryWorkflow from '@temporalio/interceptors-opentelemetry/lib/workflow';
import { defaultPayloadConverter, type Payload, type WorkflowInboundCallsInterceptor, type WorkflowInterceptors, type WorkflowInternalsInterceptor, type WorkflowOutboundCallsInterceptor } from '@temporalio/workflow';

/** Where Temporal's OpenTelemetry client interceptor puts the trace context (its TRACE_HEADER); an empty one while the client is not tracing. */
const TRACE_HEADER = '_tracer-data';

function carriesTrace(header: Payload | undefined): boolean {
  if (!header) return false;
  const carrier = defaultPayloadConverter.fromPayload<Record<string, unknown>>(header);
  return typeof carrier?.traceparent === 'string';
}

/** The methods the package's interceptors implement (@temporalio/interceptors-opentelemetry 1.24). */
const INBOUND = ['execute', 'handleSignal', 'handleUpdate', 'validateUpdate', 'handleQuery'] as const;
const OUTBOUND = ['scheduleActivity', 'scheduleLocalActivity', 'startNexusOperation', 'startChildWorkflowExecution', 'continueAsNew', 'signalWorkflow', 'getLogAttributes', 'getMetricTags'] as const;
const INTERNALS = ['dispose'] as const;

type Method = (input: unknown, next: (input: unknown) => unknown) => unknown;

/** Each method handed to the interceptor `traced()` gives while the run is traced, straight to `next` otherwise. */
function gated<T>(methods: readonly string[], traced: () => object | undefined): T {
  return Object.fromEntries(
    methods.map((name) => [
      name,
      (input: unknown, next: (input: unknown) => unknown) => {
        const interceptor = traced() as Record<string, Method> | undefined;
        return interceptor ? interceptor[name].call(interceptor, input, next) : next(input);
      },
    ]),
  ) as T;
}

export const interceptors = (): WorkflowInterceptors => {
  let tracing: { inbound: object; outbound: object; internals: object } | undefined;
  const inbound = gated<WorkflowInboundCallsInterceptor>(INBOUND, () => tracing?.inbound);
  const execute = inbound.execute!;
  inbound.execute = (input, next) => {
    if (carriesTrace(input.headers[TRACE_HEADER])) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded for the first traced run only
      const otel = require('@temporalio/interceptors-opentelemetry/lib/workflow') as typeof OpenTelemetryWorkflow;
      tracing = { inbound: new otel.OpenTelemetryInboundInterceptor(), outbound: new otel.OpenTelemetryOutboundInterceptor(), internals: new otel.OpenTelemetryInternalsInterceptor() };
    }
    return execute(input, next);
  };
  return {
    inbound: [inbound],
    outbound: [gated<WorkflowOutboundCallsInterceptor>(OUTBOUND, () => tracing?.outbound)],
    internals: [gated<WorkflowInternalsInterceptor>(INTERNALS, () => tracing?.internals)],
  };
};
