import { z } from 'zod';
import { Invalid } from '../errors';

export const RESOURCE_ID_PATTERN = /^[A-Za-z0-9._:@-]{1,128}$/;
export const BUSINESS_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

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

/** Parses `body` with `schema` or throws a 400 naming the first bad field. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  // No body at all is an empty object; a JSON null or scalar body is not.
  const parsed = schema.safeParse(body === undefined ? {} : body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue.path.join('.');
  throw new Invalid(field ? `Invalid ${field}: ${issue.message}` : `Invalid request body: ${issue.message}`);
}
