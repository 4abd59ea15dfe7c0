import { z } from 'zod';

/**
 * The standard OpenTelemetry variables this service reads itself (the OTLP exporters read the rest,
 * e.g. OTEL_EXPORTER_OTLP_HEADERS). Parsed apart from src/config/index.ts because tracing starts before
 * anything else is loaded, so that HTTP and pg are instrumented when they are.
 */
export const tracingEnv = z.object({
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

/** What `npm start` prints about tracing: where spans go, or how to see them. */
export function tracingLine(env: Record<string, string | undefined> = process.env): string {
  const settings = tracingSettingsOf(env);
  if (settings.OTEL_EXPORTER_OTLP_ENDPOINT) return `OTLP ${settings.OTEL_EXPORTER_OTLP_PROTOCOL} to ${settings.OTEL_EXPORTER_OTLP_ENDPOINT}`;
  return 'off; to see them: docker run --rm -p 16686:16686 -p 4318:4318 jaegertracing/all-in-one, then OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 npm start and open http://localhost:16686 (docs/operations.md)';
}
