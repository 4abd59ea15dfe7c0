import { z } from 'zod';
import type { OperationDoc, ResponseDoc } from '../../use-cases/input/operation-docs';
import { BAD_BODY_OR_PATH, BAD_PATH, businessResponses, components, type OpenApiObject, problemOf, ref, UNKNOWN_BUSINESS } from './components';
import { inlineSchema, type Io } from './from-zod';

/*
 * An operation of the document from what its feature says of it (`<feature>/operations.ts`) and what only
 * the route knows: its tag, whether it reads a body, the parameters and what every route shares.
 */

/** What the route adds to its feature's account of the operation. */
export interface Wiring {
  /** The route reads a body: its shared 400, 413 and 415. */
  body?: boolean;
  /** The statuses every answer of the route may have, in place of a business route's. */
  shared?: OpenApiObject;
  security?: OpenApiObject[];
  parameters?: OpenApiObject[];
  /** A request body other than the feature's JSON one (another media type). */
  requestBody?: OpenApiObject;
  /** Schemas of answers that no contract names (a page built here). */
  schemas?: Record<number, OpenApiObject>;
  /** Answers written here in full. */
  responses?: OpenApiObject;
}

/** Response headers the document writes in place rather than in components.headers. */
const INLINE_HEADERS: OpenApiObject = {
  'Idempotent-Replayed': { description: 'Present when this answers a repeated `Idempotency-Key`.', schema: { type: 'string', const: 'true' } },
};

/** A contract's schema: a reference to its component when it is named, else inline. */
export function schemaOf(schema: z.ZodType, io: Io): OpenApiObject {
  const id = z.globalRegistry.get(schema)?.id;
  return id ? ref('schemas', id) : inlineSchema(schema, io);
}

const header = (name: string) => (name in components.headers ? ref('headers', name) : INLINE_HEADERS[name]);

function answer(doc: ResponseDoc, schema: OpenApiObject | undefined): OpenApiObject {
  const { description, example, examples, headers } = doc;
  const body = schema ?? (doc.schema && schemaOf(doc.schema, 'output'));
  return {
    description,
    ...(headers && { headers: Object.fromEntries(headers.map((name) => [name, header(name)])) }),
    ...(body && { content: { 'application/json': { schema: body, ...(example !== undefined && { example }), ...(examples && { examples }) } } }),
  };
}

function requestBody(body: NonNullable<OperationDoc['body']>): OpenApiObject {
  const { schema, required = true, example, examples, media = { 'application/json': { example } } } = body;
  const content = Object.entries(media).map(([type, { example: one }]) => [
    type,
    { ...(schema && { schema: schemaOf(schema, 'input') }), ...(one !== undefined && { example: one }), ...(examples && { examples }) },
  ]);
  return { required, content: Object.fromEntries(content) };
}

/** The responses of a route under the business prefix that every one of them shares. */
const businessDefaults = (withBody: boolean) => ({ 400: withBody ? BAD_BODY_OR_PATH : BAD_PATH, 404: UNKNOWN_BUSINESS, ...businessResponses(withBody) });

/** The Operation Object of `operationId` under `tag`. */
export function operationOf(operationId: string, tag: string, doc: OperationDoc, wiring: Wiring = {}): OpenApiObject {
  const own = Object.entries(doc.responses).map(([key, response]) => {
    const status = Number(key);
    return [key, status >= 400 && response.examples ? problemOf(status, response) : answer(response, wiring.schemas?.[status])];
  });
  const body = wiring.requestBody ?? (doc.body && requestBody(doc.body));
  return {
    operationId,
    tags: [tag],
    ...(wiring.security && { security: wiring.security }),
    summary: doc.summary,
    ...(doc.description !== undefined && { description: doc.description }),
    ...(wiring.parameters && { parameters: wiring.parameters }),
    ...(body && { requestBody: body }),
    responses: { ...(wiring.shared ?? businessDefaults(wiring.body ?? false)), ...Object.fromEntries(own), ...wiring.responses },
  };
}
