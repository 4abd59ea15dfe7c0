import { hasUnstorableCharacters } from '../../db/errors';
import { Invalid } from '../errors';

/* No string of a body or an operation's input that PostgreSQL cannot store gets past the doors (see hasUnstorableCharacters). */

/** Deeper than any body or operation input the service reads; a JSON body nested further is refused before anything walks it. */
export const MAX_BODY_DEPTH = 32;

/** A body nested beyond MAX_BODY_DEPTH: refused with the text of any other body the API cannot read. */
export const tooDeepBody = () => new Invalid('Malformed JSON body', 'malformed-json');

/**
 * The path of the first string (key or value) in `value` that PostgreSQL cannot store, e.g.
 * `agents.0.agent`. Walks without recursion, so no nesting can overflow the stack; a value nested
 * deeper than MAX_BODY_DEPTH is a 400.
 */
export function firstUnstorableField(value: unknown): string | undefined {
  // Each key is checked just before its value, as a depth-first reading of the body meets them.
  const pending: ({ value: unknown; path: string[] } | { key: string; path: string[] })[] = [{ value, path: [] }];
  while (pending.length > 0) {
    const item = pending.pop()!;
    if ('key' in item) {
      if (hasUnstorableCharacters(item.key)) return [...item.path, '(a key)'].join('.');
      continue;
    }
    const { value: current, path } = item;
    if (typeof current === 'string') {
      if (hasUnstorableCharacters(current)) return path.join('.') || 'request body';
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (path.length >= MAX_BODY_DEPTH) throw tooDeepBody();
    const entries = Object.entries(current);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i];
      pending.push({ value: child, path: [...path, key] }, { key, path });
    }
  }
  return undefined;
}

export const unstorableField = (field: string) => new Invalid(`Invalid ${field}: must not contain NUL characters or unpaired surrogates`);
