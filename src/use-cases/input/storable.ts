import { hasUnstorableCharacters } from '../../db/errors';
import { Invalid } from '../errors';

/* No string of a body or an operation's input that PostgreSQL cannot store gets past the doors (see hasUnstorableCharacters). */

/** Deeper than any body or operation input the service reads; a JSON body nested further is refused before anything walks it. */
export const MAX_BODY_DEPTH = 32;

/**
 * Array elements and object members, counted at every depth: twenty times the largest body the service
 * reads (a campaign of 1,000 recipients with four fields each is about 5,000), far below what makes
 * reading a body cost more than its size says.
 */
export const MAX_BODY_VALUES = 100_000;

/** A body nested beyond MAX_BODY_DEPTH: refused with the text of any other body the API cannot read. */
export const tooDeepBody = () => new Invalid('Malformed JSON body', 'malformed-json');

/** A body of more than MAX_BODY_VALUES values. */
export const tooManyValues = () => new Invalid(`Request body has more than ${MAX_BODY_VALUES.toLocaleString('en-US')} values`);

/** `agents.0.agent`: the keys and indexes from the body's root down to `depth`. */
function pathOf(path: (string | number)[], depth: number): string {
  return path.slice(0, depth).join('.');
}

/**
 * The path of the first string (key or value) in `value` that PostgreSQL cannot store, e.g.
 * `agents.0.agent`. Walks without recursion, so no nesting can overflow the stack, and allocates per
 * container, never per element: one stack of the containers being read, with the position and key in
 * each, the path built only for the string it names. A value nested deeper than MAX_BODY_DEPTH, or
 * holding more than MAX_BODY_VALUES values, is a 400.
 */
export function firstUnstorableField(value: unknown): string | undefined {
  if (typeof value === 'string') return hasUnstorableCharacters(value) ? 'request body' : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  // containers[d] is read at position positions[d], its key (or index) path[d]; keys[d] is undefined for an array.
  const containers: object[] = [value];
  const keys: (string[] | undefined)[] = [Array.isArray(value) ? undefined : Object.keys(value)];
  const positions: number[] = [0];
  const path: (string | number)[] = [];
  const leave = () => {
    containers.pop();
    keys.pop();
    positions.pop();
  };
  let values = 0;
  while (containers.length > 0) {
    const depth = containers.length - 1;
    const position = positions[depth]++;
    const ownKeys = keys[depth];
    let child: unknown;
    if (ownKeys === undefined) {
      const array = containers[depth] as unknown[];
      if (position >= array.length) {
        leave();
        continue;
      }
      path[depth] = position;
      child = array[position];
    } else {
      if (position >= ownKeys.length) {
        leave();
        continue;
      }
      const key = ownKeys[position];
      // Each key is checked just before its value, as a depth-first reading of the body meets them.
      if (hasUnstorableCharacters(key)) return depth === 0 ? '(a key)' : `${pathOf(path, depth)}.(a key)`;
      path[depth] = key;
      child = (containers[depth] as Record<string, unknown>)[key];
    }
    if (++values > MAX_BODY_VALUES) throw tooManyValues();
    if (typeof child === 'string') {
      if (hasUnstorableCharacters(child)) return pathOf(path, depth + 1) || 'request body';
      continue;
    }
    if (typeof child !== 'object' || child === null) continue;
    if (containers.length >= MAX_BODY_DEPTH) throw tooDeepBody();
    containers.push(child);
    keys.push(Array.isArray(child) ? undefined : Object.keys(child));
    positions.push(0);
  }
  return undefined;
}

export const unstorableField = (field: string) => new Invalid(`Invalid ${field}: must not contain NUL characters or unpaired surrogates`);
