import type { z } from 'zod';
import { Invalid } from '../errors';

/*
 * A field a route does not know is refused, never ignored: a misspelled `delay` would otherwise mean
 * "now". One check and one text, `Unknown field: {path}`, for every write route and Nexus
 * operation; see docs/interface.md, "Unknown fields".
 */

/** The fields a body may carry: each name's value is `true` (any value), the fields of an object, or `[fields]` for an array of such objects. */
export interface Fields {
  readonly [name: string]: true | Fields | readonly [Fields];
}

/** `agents[0].dt_until`: the path as a reader writes it. */
const joined = (path: string, name: string) => (path === '' ? name : `${path}.${name}`);

/**
 * The first field of `value` that `fields` does not name, at any depth, as a path; undefined when there
 * is none. Only objects and arrays are looked into: a value of the wrong type is its own check's to refuse.
 */
export function unknownField(value: unknown, fields: Fields, path = ''): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  for (const [name, inner] of Object.entries(value as Record<string, unknown>)) {
    if (!Object.hasOwn(fields, name)) return joined(path, name);
    const shape = fields[name];
    if (shape === true) continue;
    const found = Array.isArray(shape) ? unknownInElements(inner, shape[0] as Fields, joined(path, name)) : unknownField(inner, shape as Fields, joined(path, name));
    if (found) return found;
  }
  return undefined;
}

function unknownInElements(value: unknown, fields: Fields, path: string): string | undefined {
  if (!Array.isArray(value)) return undefined;
  for (const [k, element] of value.entries()) {
    const found = unknownField(element, fields, `${path}[${k}]`);
    if (found) return found;
  }
  return undefined;
}

/** The 400 of a field no route of this service reads. */
export function unknownFieldError(path: string): Invalid {
  return new Invalid(`Unknown field: ${path}`);
}

/** Throws `Unknown field: {path}` for the first field `fields` does not name. */
export function refuseUnknownFields(value: unknown, fields: Fields): void {
  const found = unknownField(value, fields);
  if (found) throw unknownFieldError(found);
}

/** A route whose body carries nothing (cancel, close, rotate-secret…): any field in it is unknown. */
export function refuseAnyField(body: unknown): void {
  refuseUnknownFields(body, {});
}

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; shape?: Record<string, z.ZodType>; catchall?: z.ZodType; element?: z.ZodType };

/**
 * The fields a zod schema reads, for parseBody: an object's shape, an array's elements, through
 * optional, nullable, default and transform wrappers. Anything else (a record, a union, a loose
 * object) takes any field: `true`.
 */
export function fieldsOfSchema(schema: z.ZodType): true | Fields | readonly [Fields] {
  const def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'nonoptional':
      return fieldsOfSchema(def.innerType!);
    case 'pipe':
      return fieldsOfSchema(def.in!);
    case 'object': {
      if (def.catchall && (def.catchall as unknown as { _zod: { def: Def } })._zod.def.type !== 'never') return true;
      return Object.fromEntries(Object.entries(def.shape!).map(([name, inner]) => [name, fieldsOfSchema(inner)]));
    }
    case 'array': {
      const element = fieldsOfSchema(def.element!);
      return element === true || Array.isArray(element) ? true : [element as Fields];
    }
    default:
      return true;
  }
}
