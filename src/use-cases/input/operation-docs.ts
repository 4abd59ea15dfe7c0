import type { z } from 'zod';
import { INVALID_CURSOR, LIMIT_RULE } from './page';
import { INVALID_BUSINESS } from './validation';

/*
 * What the OpenAPI document says of an operation besides its path: its summary and description, its body's
 * and answers' schemas and examples, and the problems it answers with their texts. Each feature writes its
 * operations beside its contract (`<feature>/operations.ts`), in plain data; src/api/openapi/operation.ts
 * turns one into an OpenAPI Operation Object and adds what every route shares (401, 403, 429, 500, 503, …).
 */

/** A detail text, or a detail with the problem type it comes with when that is not the status's first. */
export type ProblemExample = string | { type: string; detail: string };

/**
 * One status of an operation. From 400 with `examples` a problem, `examples` being its detail texts by name;
 * otherwise a JSON answer (`schema`, `example`, or `examples` as OpenAPI Example Objects), no body without `schema`.
 */
export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
  example?: unknown;
  examples?: Record<string, unknown>;
  /** Names of response headers (components.headers, or `Idempotent-Replayed`). */
  headers?: string[];
}

export interface OperationDoc {
  summary: string;
  description?: string;
  body?: {
    schema?: z.ZodType;
    required?: boolean;
    example?: unknown;
    examples?: Record<string, { summary?: string; value: unknown }>;
    /** The media types it is read as besides JSON (a merge patch), each with its example, in the document's order. */
    media?: Record<string, { example?: unknown }>;
  };
  /** By status: a number, or a range (`2XX`) or `default` of OpenAPI. */
  responses: Record<number | string, ResponseDoc>;
}

/** A feature's operations by operationId. */
export const operations = <T extends Record<string, OperationDoc>>(docs: T): T => docs;

/** Any request may fail like this when its path names no route. */
export const NO_ROUTE_EXAMPLE = { noRoute: 'No route for GET /ext/v2/acme/agentz' };
/** Express refuses a path whose percent-encoding is broken (`%ZZ`) before any route sees it. */
export const BAD_PATH_EXAMPLE = { badPathEncoding: { type: '/problems/bad-request', detail: 'Bad Request' }, badBusinessName: INVALID_BUSINESS };
/** What any JSON body can be refused for: before the route reads it, or (a field it does not know) after. */
export const BODY_EXAMPLES = {
  malformedJson: { type: '/problems/malformed-json', detail: 'Malformed JSON body' },
  tooManyValues: 'Request body has more than 100,000 values',
  unstorable: 'Invalid ds_notes: must not contain NUL characters or unpaired surrogates',
  unknownField: 'Unknown field: nmae',
};

/** How `parsePage` refuses a page's `limit` and `cursor` (lists keyed by internal ids). */
export const PAGE_ONLY_REFUSALS = { invalidLimit: `Invalid limit: ${LIMIT_RULE}`, invalidCursor: INVALID_CURSOR };

/** The 400 of a route that reads fields of its body: `examples` are its own refusals, then what any body or path can be refused for. */
export const badBody = (description: string, examples: Record<string, ProblemExample>): ResponseDoc => ({ description, examples: { ...examples, ...BODY_EXAMPLES, ...BAD_PATH_EXAMPLE } });
/** The 400 of a route that reads its query or path parameters: its own refusals, then what any path can be refused for. */
export const badParameters = (description: string, examples: Record<string, ProblemExample>): ResponseDoc => ({ description, examples: { ...examples, ...BAD_PATH_EXAMPLE } });
/** A 404 of a business route: its own texts, then a path that names no route. */
export const notFound = (description: string, examples: Record<string, ProblemExample> = {}): ResponseDoc => ({ description, examples: { ...examples, ...NO_ROUTE_EXAMPLE } });
/** The 400 of a route without a body: Express refused the path's percent-encoding. */
export const BAD_PATH: ResponseDoc = { description: 'The path is not validly percent-encoded, or its business name is not one the service accepts.', examples: BAD_PATH_EXAMPLE };
/** The 400 of a route whose body is not read for fields of its own. */
export const BAD_BODY_OR_PATH: ResponseDoc = {
  description: 'The body is not JSON or has a field the route does not read (`Unknown field: {name}`), or the path is not validly percent-encoded.',
  examples: { ...BODY_EXAMPLES, ...BAD_PATH_EXAMPLE },
};
/** The 404 of a route that names nothing of the caller's but the business. */
export const UNKNOWN_BUSINESS: ResponseDoc = notFound('No such route.');
