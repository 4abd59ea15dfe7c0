import { z } from 'zod';
import { MAX_AGENTS_PER_REQUEST, MAX_NOTES_LENGTH } from '../assignments/contract';
import { ChangedBy, DateTime, ResourceId } from '../input/contract';

/*
 * The contract of a client's rotation: the body of `PUT /clients/{_id}/rotation` and its view. The
 * parser (request.ts) keeps the checks in the style and order of assign-agents; a field this schema does
 * not name is then refused. The OpenAPI document is generated from these schemas.
 */

export const RotationRequest = z
  .object({
    agents: z
      .array(z.string().min(1))
      .min(1)
      .max(MAX_AGENTS_PER_REQUEST)
      .meta({ description: 'The caller\'s agents in the order they take the periods; each once.', examples: [['a1', 'a2', 'a3']] }),
    period: z.union([z.string(), z.int()]).meta({
      description:
        'A fixed length between 1 minute and 10 years: an ISO 8601 duration in weeks, days, hours, minutes or seconds (`P7D`, `PT8H`), ' +
        'a length such as `8h`, `30m`, `2d` or `1h30m`, or seconds. Months and years are not a fixed length and are refused. A day is 24 hours.',
      examples: ['P7D', '8h'],
    }),
    starts_at: z.string().nullish().meta({
      description:
        'Where periods are counted from (ISO 8601; a date alone is 00:00 UTC), within 10 years of now. In the past it sets the phase: the period in progress ' +
        'now is the one the schedule gives. Absent: when the rotation takes over (now, or the end of the period in progress when replacing one).',
      examples: ['2026-11-23T09:00:00Z'],
    }),
    ds_notes: z.string().max(MAX_NOTES_LENGTH).nullish().meta({ description: 'Notes put on each assignment the rotation makes; kept in the database only.' }),
    apply: z.literal('now').nullish().meta({ description: 'Replacing a rotation: `now` cuts the period in progress short and starts the new rotation at once (or at its later `starts_at`).' }),
  })
  .meta({ id: 'RotationRequest', description: 'A field not described here is a 400 `Unknown field: {name}`. A rejected request changes nothing.' });

export type RotationBody = z.input<typeof RotationRequest>;

const position = () => z.int().min(1).meta({ description: '1-based place in the agent list of the schedule it belongs to.' });
const of = () => z.int().min(1).max(100).meta({ description: 'How many agents that list has.' });
const at = (description: string) => DateTime.meta({ description });

export const RotationPeriod = z
  .strictObject({
    agent: ResourceId.meta({ description: 'Who has the period: its agent, or the next in the list when that one was skipped.' }),
    position: position(),
    of: of(),
    from: at('When the period (or the part of it this rotation covers) began.'),
    until: at('When it ends: the assignment\'s `dt_until` and the next period\'s start.'),
  })
  .meta({ id: 'RotationPeriod' });

export const RotationNext = z
  .strictObject({
    agent: ResourceId.meta({ description: 'Whose the next period is by the schedule (if that agent is gone by then, the next in the list takes it).' }),
    position: position(),
    of: of(),
    from: at('When it starts; in the past only while no worker has handed it out yet.'),
  })
  .meta({ id: 'RotationNext' });

export const RotationReplacement = z
  .strictObject({
    agents: z.array(ResourceId),
    period: z.string(),
    period_ms: z.int(),
    starts_at: DateTime,
    ds_notes: z.string().nullable(),
    from: at('When it takes over from the rotation in force.'),
  })
  .meta({ id: 'RotationReplacement' });

export const Rotation = z
  .strictObject({
    client: ResourceId,
    status: z.enum(['active', 'stopped']).meta({ description: '`stopped` after a DELETE: no further period is handed out.' }),
    agents: z.array(ResourceId).meta({ description: 'The rotation in force, in order.' }),
    period: z.string().meta({ description: 'As it was given.' }),
    period_ms: z.int().min(1000),
    starts_at: at('Where its periods are counted from.'),
    ds_notes: z.string().nullable(),
    current: RotationPeriod.nullable().meta({ description: 'The period in progress; null when none is (not started, stopped and run out, or nobody could take it).' }),
    next: RotationNext.nullable().meta({ description: 'The next period by the schedule; null once stopped.' }),
    next_change_at: z.string().nullable().meta({ format: 'date-time', description: 'When the next period starts; null once stopped.' }),
    replacement: RotationReplacement.nullable().meta({ description: 'A PUT waiting to take over at a later `starts_at`.' }),
    skipped: z
      .array(
        z.strictObject({
          from: DateTime,
          until: DateTime,
          agent: z.string().nullable(),
          position: z.int().min(1).nullable(),
          reason: z.string().meta({ examples: ['Agent a2 not found or not authorized'] }),
        }),
      )
      .meta({
        description:
          'The latest periods (at most 50) not handed to their agent, and why: an agent deleted or no longer the caller\'s, or periods that ended before a step could hand them out (no worker ran, or the step came late; the reason says which).',
      }),
    stopped_at: z.string().nullable().meta({ format: 'date-time' }),
    stopped_by: ChangedBy.nullable().meta({
      description: 'Who stopped it: `user`/`api` (its owner, DELETE …/rotation) or `operator`/`operator` (a run of an earlier build canceled in the Temporal UI; a client run canceled today stops no rotation); null while active.',
    }),
    version: z.int().min(1).meta({ description: 'Raised by every change.' }),
    workflow_id: z.string().regex(/^(client|rotation)\//).meta({
      description:
        'The Temporal workflow that holds the rotation\'s clock: the client\'s run, `client/{business}/{client id}/{client key}` (one per client), ' +
        'or, until that run takes it over, a per-rotation run of an older build, `rotation/{business}/{client key}/{rotation key}`. Ids and keys only.',
    }),
  })
  .meta({ id: 'Rotation' });

export const ROTATION_SCHEMAS = { requests: [RotationRequest], responses: [RotationPeriod, RotationNext, RotationReplacement, Rotation] };
