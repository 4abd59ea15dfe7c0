import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';

/**
 * A workflow span as Temporal's workflow exporter (@temporalio/interceptors-opentelemetry 1.24) hands it
 * over: built in the sandbox by its own OpenTelemetry 1.x, which names the parent by `parentSpanId` and
 * the tracer by `instrumentationLibrary` where the 2.x and later SDK read `parentSpanContext` and
 * `instrumentationScope`.
 */
type WorkflowSpan = Omit<ReadableSpan, 'parentSpanContext' | 'instrumentationScope'> & { parentSpanId?: string; instrumentationLibrary?: ReadableSpan['instrumentationScope'] };

/** The span in the current SDK's shape: without it a workflow span has no parent and the OTLP exporter no scope to group it by. */
export function currentShapeOf(span: WorkflowSpan | ReadableSpan): ReadableSpan {
  if (!('instrumentationLibrary' in span) && !('parentSpanId' in span)) return span as ReadableSpan;
  const { parentSpanId, instrumentationLibrary, ...rest } = span as WorkflowSpan;
  const own = span.spanContext();
  return {
    ...rest,
    spanContext: () => own,
    parentSpanContext: parentSpanId ? { traceId: own.traceId, spanId: parentSpanId, traceFlags: own.traceFlags } : undefined,
    instrumentationScope: instrumentationLibrary ?? { name: '@temporalio/interceptor-workflow' },
  };
}

/** Hands `next` the workflow spans in the current SDK's shape. */
export function workflowSpanProcessor(next: SpanProcessor): SpanProcessor {
  return {
    onStart: (span, context) => next.onStart(span, context),
    onEnd: (span) => next.onEnd(currentShapeOf(span)),
    forceFlush: () => next.forceFlush(),
    shutdown: () => next.shutdown(),
  };
}
