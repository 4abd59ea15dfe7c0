import type { IncomingMessage } from 'node:http';
import type { Span } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Request } from 'express';
import { routeOf } from './http-route';
import { scrubbingProcessor } from './private-attributes';
import { tracingSettingsOf } from './settings';
import { activeTracing, setActiveTracing, type Tracing } from './active-tracing';

/** Scrapes and probes are not requests anyone follows. */
const UNTRACED_PATHS = new Set(['/metrics', '/healthz', '/readyz']);

/** Names the server span after its route template and keeps the request id that the request log gave it. */
function describeServerSpan(span: Span, request: IncomingMessage): void {
  const req = request as Request;
  if (!req.route) return;
  const route = routeOf(req);
  span.setAttribute('http.route', route);
  span.updateName(`${req.method} ${route}`);
}

/**
 * Starts the OpenTelemetry SDK: HTTP (in and out, `http` and `fetch`), pg, and the OTLP exporter the
 * standard variables describe. Off (undefined) unless OTEL_EXPORTER_OTLP_ENDPOINT is set or a test
 * hands in its own processor. Call it before express and pg are loaded: their modules are patched as
 * they load.
 */
export function startTracing(options: { env?: Record<string, string | undefined>; processor?: SpanProcessor; serviceName?: string } = {}): Tracing | undefined {
  const running = activeTracing();
  if (running) return running;
  const settings = tracingSettingsOf(options.env);
  if (!settings.OTEL_EXPORTER_OTLP_ENDPOINT && !options.processor) return undefined;
  const exporter = () => (settings.OTEL_EXPORTER_OTLP_PROTOCOL === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter());
  const processor = scrubbingProcessor(options.processor ?? new BatchSpanProcessor({ exporter: exporter() }));
  const resource = detectResources({ detectors: [envDetector, hostDetector, processDetector] }).merge(
    resourceFromAttributes({ 'service.name': settings.OTEL_SERVICE_NAME ?? options.serviceName ?? 'crm-messaging' }),
  );
  const instrumentations = {
    http: new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]),
      applyCustomAttributesOnSpan: (span, request) => {
        if ('httpVersion' in request) describeServerSpan(span, request);
      },
    }),
    // Statements only: never the values bound to them (enhancedDatabaseReporting stays off).
    pg: new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
    undici: new UndiciInstrumentation(),
  };
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    spanProcessors: [processor],
    logRecordProcessors: [],
    instrumentations: Object.values(instrumentations),
  });
  sdk.start();
  return setActiveTracing({
    processor,
    resource,
    instrumentations,
    shutdown: async () => {
      setActiveTracing(undefined);
      await sdk.shutdown();
    },
  });
}
