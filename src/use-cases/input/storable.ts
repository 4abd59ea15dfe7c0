import { Invalid } from '../errors';

/*
 * PostgreSQL's text cannot hold a NUL character, and UTF-8 cannot encode half a surrogate pair: such a
 * string fails inside the database, after a workflow has started. No string of a body gets that far.
 */
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function hasUnstorableCharacters(value: string): boolean {
  return UNSTORABLE.test(value);
}

/** The path of the first string (key or value) in `value` that PostgreSQL cannot store, e.g. `agents.0.agent`. */
export function firstUnstorableField(value: unknown, path: string[] = []): string | undefined {
  if (typeof value === 'string') return hasUnstorableCharacters(value) ? path.join('.') || 'request body' : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    if (hasUnstorableCharacters(key)) return [...path, '(a key)'].join('.');
    const found = firstUnstorableField(child, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

export const unstorableField = (field: string) => new Invalid(`Invalid ${field}: must not contain NUL characters or unpaired surrogates`);
