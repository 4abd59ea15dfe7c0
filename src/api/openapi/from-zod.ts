import { z } from 'zod';
import { SHARED_SCHEMAS } from '../../use-cases/input/contract';
import { pageQuery } from '../../use-cases/input/page';
import type { OpenApiObject } from './components';

/*
 * The contracts' zod schemas as OpenAPI 3.1 Schema Objects. OpenAPI 3.1's dialect is JSON Schema
 * 2020-12, which is what z.toJSONSchema writes; what differs is tidied here: no `$schema`/`$id` in a
 * Schema Object, named schemas under components.schemas instead of `$defs`, and none of zod's
 * machine-made noise (the safe-integer bounds of every integer, the date-time regex beside the format).
 */

export type Io = 'input' | 'output';

const DEFS = '#/$defs/';
const SAFE_BOUNDS = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } as const;

function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== 'object') return node;
  const out: OpenApiObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || key === '$id') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith(DEFS)) out.$ref = `#/components/schemas/${value.slice(DEFS.length)}`;
    else out[key] = tidy(value);
  }
  for (const bound of ['minimum', 'maximum'] as const) if (out[bound] === SAFE_BOUNDS[bound]) delete out[bound];
  if (out.format === 'date-time' && typeof out.pattern === 'string' && out.pattern.length > 100) delete out.pattern;
  if (out.propertyNames && Object.keys(out.propertyNames).length === 1 && out.propertyNames.type === 'string') delete out.propertyNames;
  return out;
}

function add(target: Record<string, OpenApiObject>, name: string, schema: OpenApiObject): void {
  if (name in target && JSON.stringify(target[name]) !== JSON.stringify(schema)) {
    throw new Error(`The contract schema ${name} reads differently as a request and as a response: give each its own id`);
  }
  target[name] = schema;
}

/**
 * components.schemas for named zod schemas (`.meta({ id })`): requests as the client writes them
 * (`io: 'input'`: a field with a default is optional), responses as the server sends them. A named
 * schema they contain becomes a `$ref` and a component of its own.
 */
export function componentSchemas(requests: readonly z.ZodType[], responses: readonly z.ZodType[]): Record<string, OpenApiObject> {
  const schemas: Record<string, OpenApiObject> = {};
  for (const [list, io] of [[requests, 'input'], [responses, 'output']] as const) {
    for (const schema of list) {
      if (!z.globalRegistry.get(schema)?.id) throw new Error('A contract schema of the document needs .meta({ id })');
      const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as OpenApiObject;
      for (const [name, def] of Object.entries<OpenApiObject>(json.$defs ?? {})) add(schemas, name, tidy(def) as OpenApiObject);
    }
  }
  return schemas;
}

/** One schema inline (a parameter's, or a named one to extend); what it contains that is named must be a component already. */
export function inlineSchema(schema: z.ZodType, io: Io = 'input'): OpenApiObject {
  const { $defs: defs, ...json } = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as OpenApiObject;
  const root = typeof json.$ref === 'string' && json.$ref.startsWith(DEFS) ? defs[json.$ref.slice(DEFS.length)] : json;
  return tidy(root) as OpenApiObject;
}

/**
 * The query parameters a route's zod query schema reads, in its order: each field's `description` and first
 * example are the parameter's, a named schema is a `$ref`, and a default is the schema's. A field whose schema
 * reads as one of `shared` (a parser with texts of its own, as `resourceId`) is a `$ref` to that one too.
 */
export function queryParameters(query: z.ZodObject, shared: readonly z.ZodType[] = SHARED_SCHEMAS): OpenApiObject[] {
  const named = Object.fromEntries(shared.map((one) => {
    const { description: _prose, examples: _examples, ...schema } = inlineSchema(one);
    return [z.globalRegistry.get(one)?.id as string, JSON.stringify(schema)];
  }));
  return Object.entries(query.shape).map(([name, field]) => {
    const { description, examples } = z.globalRegistry.get(field) ?? {};
    const inner = field instanceof z.ZodOptional ? field.unwrap() : field;
    const { description: _prose, examples: _examples, default: fallback, ...schema } = inlineSchema(field);
    const id = z.globalRegistry.get(inner)?.id ?? Object.keys(named).find((key) => named[key] === JSON.stringify(schema));
    return {
      name,
      in: 'query',
      required: !field.safeParse(undefined).success,
      ...(description !== undefined && { description }),
      schema: id ? { $ref: `#/components/schemas/${id}` } : { ...schema, ...(fallback !== undefined && { default: fallback }) },
      ...(Array.isArray(examples) && { example: examples[0] }),
    };
  });
}

/** The `limit` and `cursor` query parameters of a list read a page at a time (`pageQuery`); `limitDescription` says how many a page of it holds. */
export function pageParameters(limitDescription?: string): OpenApiObject[] {
  const limit = limitDescription === undefined ? pageQuery.limit : pageQuery.limit.meta({ description: limitDescription });
  return queryParameters(z.object({ ...pageQuery, limit }));
}
