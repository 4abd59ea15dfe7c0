import { trace } from '@opentelemetry/api';

/** The span attribute naming the HTTP request a piece of work came from (its X-Request-Id). */
export const REQUEST_ID_ATTRIBUTE = 'crm.request_id';

/** The active span's ids, for log lines written while one is. */
export function activeSpanIds(): { trace_id: string; span_id: string } | undefined {
  const context = trace.getActiveSpan()?.spanContext();
  return context && trace.isSpanContextValid(context) ? { trace_id: context.traceId, span_id: context.spanId } : undefined;
}

/** Names the request on the active span (the HTTP request's, or an activity's). */
export function tagRequestId(requestId: string): void {
  trace.getActiveSpan()?.setAttribute(REQUEST_ID_ATTRIBUTE, requestId);
}
