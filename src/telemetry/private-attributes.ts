import { SpanKind, type Attributes, type AttributeValue, type Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import { withoutSecrets } from './http-route';

/** Attributes naming a whole URL or its path and query, by the old and the new HTTP conventions. */
const URL_ATTRIBUTES = ['http.url', 'url.full'];
const TARGET_ATTRIBUTES = ['http.target', 'url.path'];
const DROPPED_ATTRIBUTES = ['url.query'];

const isPrimitive = (value: unknown): value is AttributeValue =>
  ['string', 'number', 'boolean'].includes(typeof value) || (Array.isArray(value) && value.every((item) => ['string', 'number', 'boolean'].includes(typeof item) || item == null));

/** A URL without its query, fragment, credentials and inbound secret; a server's path replaced by its route template (ids may be e-mails). */
function withoutPersonalParts(value: string, route: string | undefined): string {
  try {
    const url = new URL(value, 'http://relative.invalid');
    url.search = '';
    url.hash = '';
    url.username = '';
    url.password = '';
    url.pathname = route ?? withoutSecrets(url.pathname);
    return url.origin === 'http://relative.invalid' ? url.pathname : url.toString();
  } catch {
    return '[unparsable url]';
  }
}

/**
 * What a span may keep: query strings (GET /opt-outs?phone=…), credentials and inbound secrets in URLs and an incoming
 * request's raw path (user ids may be e-mails) go; so do structured values, such as the whole workflow
 * info (memo, search attributes) that Temporal's workflow span exporter copies onto each span.
 */
export function scrubbedAttributes(attributes: Attributes, kind: SpanKind): Attributes {
  const route = kind === SpanKind.SERVER ? String(attributes['http.route'] ?? '/:unmatched') : undefined;
  const kept: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (DROPPED_ATTRIBUTES.includes(key) || !isPrimitive(value)) continue;
    if (typeof value === 'string' && URL_ATTRIBUTES.includes(key)) kept[key] = withoutPersonalParts(value, route);
    else if (typeof value === 'string' && TARGET_ATTRIBUTES.includes(key)) kept[key] = route ?? withoutPersonalParts(value, undefined);
    else kept[key] = value;
  }
  return kept;
}

/** Hands `next` each ended span with its attributes scrubbed (the span itself stays untouched). */
export function scrubbingProcessor(next: SpanProcessor): SpanProcessor {
  return {
    onStart: (span: Span, context: Context) => next.onStart(span, context),
    onEnd: (span: ReadableSpan) => next.onEnd(Object.create(span, { attributes: { value: scrubbedAttributes(span.attributes, span.kind), enumerable: true } })),
    forceFlush: () => next.forceFlush(),
    shutdown: () => next.shutdown(),
  };
}
