import { z } from 'zod';
import { Invalid } from '../errors';
import { fieldsOfSchema, refuseUnknownFields, unknownFieldError, type Fields } from './known-fields';

export const RESOURCE_ID_PATTERN = /^[A-Za-z0-9._:@-]{1,128}$/;
/**
 * A business name (the path's `{businessname}`): 1–64 characters of letters, digits, `.`, `_` and `-`,
 * starting with a letter or digit and without two dots in a row. It becomes part of workflow ids and
 * URLs, where `.` or `..` would read as a directory.
 */
export const BUSINESS_PATTERN = /^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** The contract's characters and length: a path segment outside them names no business at all (404, as any unknown path). */
export const BUSINESS_CHARACTERS = /^[A-Za-z0-9._-]{1,64}$/;
/** What BUSINESS_PATTERN asks, in the words of a 400. */
export const INVALID_BUSINESS = 'Invalid business: must be 1-64 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit, without two dots in a row';

/**
 * Characters that show nothing: white space, format characters (zero-width space and joiners, word
 * joiner, bidirectional marks, soft hyphen, BOM), the combining grapheme joiner, the Hangul fillers
 * and the blank Braille pattern.
 */
const INVISIBLE_ONLY = /^[\s\p{Cf}\u034F\u115F\u1160\u2800\u3164\uFFA0]*$/u;

/** A string a reader would see as empty: nothing but white space and invisible characters. */
export function isBlank(text: string): boolean {
  return INVISIBLE_ONLY.test(text);
}

/** An optional name: a blank one is no name. */
export const optionalName = z
  .string()
  .max(200)
  .nullish()
  .transform((name) => (name === undefined || name === null || isBlank(name) ? null : name));

export const resourceId = z.string().regex(RESOURCE_ID_PATTERN, 'must be 1-128 characters of A-Z a-z 0-9 . _ : @ -');

/** Normalises spaces, dashes, dots and parentheses away; the result must be E.164. */
export function normalisePhone(raw: string): string | undefined {
  const phone = raw.replace(/[\s\-.()]/g, '');
  return /^\+[1-9]\d{6,14}$/.test(phone) ? phone : undefined;
}

export const phoneNumber = z.string().transform((raw, ctx) => {
  const phone = normalisePhone(raw);
  if (!phone) {
    ctx.addIssue({ code: 'custom', message: 'must be an E.164 phone number such as +14155550123' });
    return z.NEVER;
  }
  return phone;
});

/**
 * Parses `body` with `schema` or throws a 400 naming the first bad field; once every field it names
 * passes, a field it does not name is a 400 `Unknown field: {path}` (known-fields.ts).
 */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  // No body at all is an empty object; a JSON null or scalar body is not.
  const input = body === undefined ? {} : body;
  const parsed = schema.safeParse(input);
  if (parsed.success) {
    const fields = fieldsOfSchema(schema);
    if (fields !== true && !Array.isArray(fields)) refuseUnknownFields(input, fields as Fields);
    return parsed.data;
  }
  // A strict object's unknown key is the last thing said, as it is for any other object.
  const issue = parsed.error.issues.find((i) => i.code !== 'unrecognized_keys') ?? parsed.error.issues[0];
  if (issue.code === 'unrecognized_keys') throw unknownFieldError(pathText([...issue.path, issue.keys[0]]));
  const field = issue.path.join('.');
  throw new Invalid(field ? `Invalid ${field}: ${issue.message}` : `Invalid request body: ${issue.message}`);
}

/** `agents[0].dt_until`, as known-fields.ts writes a path. */
function pathText(path: PropertyKey[]): string {
  return path.reduce<string>((text, part) => (typeof part === 'number' ? `${text}[${part}]` : text === '' ? String(part) : `${text}.${String(part)}`), '');
}
