import { z } from 'zod';

/**
 * The standard OpenTelemetry variables this service reads itself (the OTLP exporters read the rest,
 * e.g. OTEL_EXPORTER_OTLP_HEADERS). Parsed apart from src/config.ts because tracing starts before
 * anything else is loaded, so that HTTP and pg are instrumented when they are.
 */
const tracingEnv = z.object({
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .optional()
    .transform((v) => (v && v.trim() ? v.trim() : undefined))
    .pipe(z.string().url('OTEL_EXPORTER_OTLP_ENDPOINT must be a URL, e.g. http://localhost:4318').optional()),
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .enum(['http/protobuf', 'http/json'], { message: 'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json' })
    .default('http/protobuf'),
  OTEL_SERVICE_NAME: z
    .string()
    .optional()
    .transform((v) => (v && v.trim() ? v.trim() : undefined)),
});

export type TracingSettings = z.infer<typeof tracingEnv>;

export function tracingSettingsOf(env: Record<string, string | undefined> = process.env): TracingSettings {
  const parsed = tracingEnv.safeParse(env);
  if (!parsed.success) throw new Error(parsed.error.issues.map((issue) => issue.message).join('; '));
  return parsed.data;
}

/** The line `npm start` prints while tracing is off. */
export const TRACING_HINT =
  'off: set OTEL_EXPORTER_OTLP_ENDPOINT, e.g. docker run --rm -p 16686:16686 -p 4318:4318 jaegertracing/all-in-one then OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 (docs/operations.md)';
