import { z } from 'zod';
import { RESOURCE_ID_PATTERN } from './validation';

/*
 * The schemas every feature's contract shares. A schema with `.meta({ id })` is a component of the
 * OpenAPI document under that name (src/api/openapi/from-zod.ts); its prose is the document's.
 */

export const ResourceId = z.string().regex(RESOURCE_ID_PATTERN).meta({
  id: 'ResourceId',
  description: '1–128 characters of `A-Z a-z 0-9 . _ : @ -`, unique per business and user.',
  examples: ['c1'],
});

export const DateTime = z.string().meta({ id: 'DateTime', format: 'date-time', description: 'ISO 8601, UTC.', examples: ['2030-01-01T00:00:00.000Z'] });

/** An instant or null, with what it marks. */
export const dateOrNull = (description: string) => z.string().nullable().meta({ format: 'date-time', description });

/** A string such as a UUID, by its format. */
export const uuid = () => z.string().meta({ format: 'uuid' });

export const ChangedBy = z
  .strictObject({
    actor: z.enum(['user', 'operator', 'system']),
    reason: z.enum(['api', 'expiry', 'operator', 'rule', 'client_deleted', 'agent_deleted', 'routing']),
  })
  .meta({
    id: 'ChangedBy',
    description:
      'Who ended, canceled or stopped it, and why (the `reason` its event carries): `user` with `api` — the owner, the only user who can ' +
      'change it (the token\'s subject, over HTTP or Nexus), so the caller; `operator` with `operator` — its workflow canceled in the Temporal UI; ' +
      '`system` with `expiry` — its date came; `user` with `client_deleted` / `agent_deleted` — the owner deleted the client (its erasure) or the agent.',
    examples: [{ actor: 'user', reason: 'api' }],
  });

/** One page of a list: `field` holds the page's items, `next_cursor` leads to the next page. */
export function page<F extends string, T extends z.ZodType>(field: F, items: T, description?: string) {
  const array = description === undefined ? z.array(items) : z.array(items).meta({ description });
  return z.object({ [field]: array, next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }) } as { [K in F]: typeof array } & { next_cursor: z.ZodNullable<z.ZodString> });
}

/** The schemas of this module that are components of the document. */
export const SHARED_SCHEMAS = [ResourceId, DateTime, ChangedBy];
