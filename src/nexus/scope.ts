import { MAX_SUBJECT_LENGTH } from '../auth/bearer-token';
import { Invalid } from '../use-cases/errors';
import { firstUnstorableField, unstorableField } from '../use-cases/input/storable';
import type { Scope } from '../domain';
import { BUSINESS_PATTERN, INVALID_BUSINESS } from '../use-cases/input/validation';

/**
 * An operation's input as a record: whatever a caller sent, a non-object reads as no fields at all. A
 * string PostgreSQL cannot store is refused here, as the API refuses it in a body.
 */
export function fieldsOf(input: unknown): Record<string, unknown> {
  const fields = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  const unstorable = firstUnstorableField(fields);
  if (unstorable) throw unstorableField(unstorable);
  return fields;
}

/** The business and user an operation acts for, held to the rules of the HTTP path and token. */
export function callerScope(fields: Record<string, unknown>): Scope {
  const { business, user } = fields;
  if (typeof business !== 'string' || !BUSINESS_PATTERN.test(business)) {
    throw new Invalid(INVALID_BUSINESS);
  }
  if (typeof user !== 'string' || user === '' || user.length > MAX_SUBJECT_LENGTH) {
    throw new Invalid(`Invalid user: must be a string of 1-${MAX_SUBJECT_LENGTH} characters`);
  }
  return { business, ownerId: user };
}

/** A string field naming a resource, such as `client`; anything else is a 400 naming the field. */
export function idField(fields: Record<string, unknown>, name: string): string {
  const value = fields[name];
  if (typeof value !== 'string') throw new Invalid(`Invalid ${name}: must be a string`);
  return value;
}
