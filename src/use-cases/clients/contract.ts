import { z } from 'zod';
import { timeZone } from '../input/time-zone';
import { DateTime, page, ResourceId } from '../input/contract';
import { pageQuery } from '../input/page';
import { normalisePhone, optionalName, phoneNumber, RESOURCE_ID_PATTERN, resourceId } from '../input/validation';

/*
 * The contract of clients: the bodies of `POST /clients`, `PATCH /clients/{_id}` and
 * `PUT /clients/{_id}/consents/{channel}`, the query of `GET /clients`, and the views of a client and a consent. The create and
 * patch bodies are read by parseBody (their texts are zod's); the consent's parser keeps its own
 * texts and takes its known fields from here. The OpenAPI document is generated from these schemas.
 */

export const MAX_SOURCE_LENGTH = 200;

const TIMEZONE_PROSE =
  'The client\'s IANA time zone. A message\'s `send_window` is read in it unless the message names its own zone. ' +
  'Kept as spelled; any name the time zone database knows, aliases included; UTC offsets such as `+05:30` are not zones.';

// A transform's examples are the output's, so zod leaves them out of a request: the prose goes on the string the client writes, then the parser.
const name = (example: string) => z.string().max(200).nullish().meta({ examples: [example] }).pipe(optionalName);
const phone = (description: string, example: string) => z.string().nullish().meta({ description, examples: [example] }).pipe(phoneNumber.nullish());

export const NewClient = z
  .object({
    _id: resourceId.optional().meta({ description: 'Chosen by the caller; a UUID is generated when absent.' }),
    name: name('Ada Lovelace'),
    phone: phone('Spaces, dashes, dots and parentheses are removed; the rest must be E.164 (`+` and 7–15 digits).', '+1 415 555 0100'),
    timezone: timeZone.nullish().meta({ description: TIMEZONE_PROSE, examples: ['America/New_York'] }),
  })
  .meta({ id: 'NewClient', description: 'Every field is optional; a field not described here is a 400 `Unknown field: {name}`.' });

/** As on creation; a field absent stays, null clears it. */
export const ClientChanges = z
  .object({
    _id: z.string().optional().meta({ pattern: RESOURCE_ID_PATTERN.source, description: 'The client\'s own id, if given; another is a 400.' }),
    name: name('Ada King'),
    phone: phone('As on creation: normalised to E.164.', '+44 20 7946 0958'),
    timezone: timeZone.nullish().meta({ description: 'An IANA time zone, as on creation.', examples: ['Europe/London'] }),
  })
  .meta({
    id: 'ClientChanges',
    description:
      'A JSON merge patch: a field given replaces the stored one (checked as on creation), null clears it, an absent one stays. ' +
      '`_id` may be given only as it is. A field not described here is a 400 `Unknown field: {name}`. Messages already accepted keep the phone they were accepted with.',
  });

export const Client = z
  .strictObject({
    _id: ResourceId,
    name: z.string().nullable(),
    phone: z.string().regex(/^\+[1-9][0-9]{6,14}$/).nullable().meta({ description: 'E.164.' }),
    timezone: z.string().nullable().meta({ description: 'IANA time zone, or null.', examples: ['America/New_York'] }),
    created_at: DateTime,
  })
  .meta({ id: 'Client' });

export const ClientList = page('clients', Client, 'Oldest first.').strict().meta({ id: 'ClientList' });

export const ConsentRecord = z
  .object({
    source: z.string().min(1).max(MAX_SOURCE_LENGTH).regex(/\S/).meta({ description: 'Where the client opted in, in the caller\'s words; kept trimmed.', examples: ['web form, 2026-11-20'] }),
    at: z.string().nullish().meta({ format: 'date-time', description: 'When it did; absent or null: now. Not in the future (five minutes of clock difference are allowed).' }),
  })
  .meta({ id: 'ConsentRecord', description: 'Where and when the client opted in. A field not described here is a 400 `Unknown field: {name}`.' });

export const Consent = z
  .strictObject({
    channel: z.enum(['whatsapp']),
    source: z.string(),
    at: DateTime.meta({ description: 'When the client opted in.' }),
    updated_at: DateTime,
  })
  .meta({ id: 'Consent' });

export const ConsentList = z.strictObject({ consents: z.array(Consent).meta({ description: 'By channel.' }) });

/** `GET /clients`'s query: an exact phone, a name's beginning, and the page. */
export const ClientListQuery = z.object({
  phone: z
    .string()
    .max(64)
    .transform((raw, ctx) => normalisePhone(raw) ?? (ctx.addIssue({ code: 'custom', message: 'must be an E.164 phone number such as +14155550123' }), z.NEVER))
    .optional()
    .meta({
      description: 'Only clients with exactly this phone (spaces, dashes, dots and parentheses are removed; the rest must be E.164; `+` is `%2B` in a URL).',
      examples: ['+14155550100'],
    }),
  q: z.string().min(1, 'must not be empty').max(200).optional().meta({ description: 'Only clients whose name starts with this, case-insensitively.', examples: ['ad'] }),
  ...pageQuery,
});

export const CLIENT_SCHEMAS = { requests: [NewClient, ClientChanges], responses: [Client, ClientList] };
export const CONSENT_SCHEMAS = { requests: [ConsentRecord], responses: [Consent] };
