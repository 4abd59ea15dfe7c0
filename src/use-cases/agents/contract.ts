import { z } from 'zod';
import { PRESENCES } from '../../domain';
import { DateTime, ResourceId, uuid } from '../input/contract';
import { timeZone } from '../input/time-zone';
import { optionalName, resourceId } from '../input/validation';

/*
 * The contract of agents: the bodies of `POST /agents`, `PATCH /agents/{_id}` and
 * `POST /agents/{_id}/absences` (read by parseBody; request.ts adds the checks between fields) and the
 * views of an agent, its absences and the clients it holds. The OpenAPI document is generated from these.
 */

export const MAX_CAPACITY = 10_000;
const MAX_INTERVALS_PER_DAY = 12;
export const MAX_ABSENCE_NOTE_LENGTH = 500;

const CLOCK = /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const clock = () => z.string().regex(CLOCK, 'must be HH:MM between 00:00 and 24:00');

const interval = z.tuple([clock(), clock()]).refine(([from, to]) => from < to, 'must end after it starts (split a night shift at midnight)');
const day = z.array(interval).max(MAX_INTERVALS_PER_DAY).optional();

export const WorkingHours = z.strictObject({ mon: day, tue: day, wed: day, thu: day, fri: day, sat: day, sun: day }).meta({
  id: 'WorkingHours',
  description:
    'Intervals of wall-clock time per weekday, in the agent\'s `timezone` (so 09:00 stays 09:00 across daylight saving). A day absent or empty is not worked. ' +
    '`"24:00"` ends a day; a night shift is two intervals, one each side of midnight.',
  examples: [{ mon: [['09:00', '17:00']], tue: [['09:00', '12:00'], ['13:00', '17:00']] }],
});

export const NewAgent = z
  .object({
    _id: resourceId.optional().meta({ description: 'Chosen by the caller; a UUID is generated when absent.' }),
    // A transform's examples are the output's, so zod leaves them out of a request: they go on the string the client writes.
    name: z.string().max(200).nullish().meta({ examples: ['Grace Hopper'] }).pipe(optionalName),
  })
  .meta({ id: 'NewAgent', description: 'Every field is optional; a field not described here is a 400 `Unknown field: {name}`.' });

/** PATCH /agents/{_id} as JSON merge patch (RFC 7396): a field absent stays, a field null goes back to its default. */
export const AgentPatch = z
  .object({
    name: optionalName,
    timezone: timeZone.nullish().meta({ description: 'IANA name; needed while the agent has working hours.' }),
    working_hours: WorkingHours.nullish(),
    presence: z.enum(PRESENCES).nullish(),
    capacity: z.number().int().min(0).max(MAX_CAPACITY).nullish(),
  })
  .meta({
    id: 'AgentPatch',
    description: 'A JSON merge patch (RFC 7396): a field absent stays as it is, a field `null` goes back to its default. A field not described here is a 400 `Unknown field: {name}`.',
  });

const ISO = 'must be an ISO 8601 date or date-time';

export const NewAbsence = z
  .object({
    from: z.string(ISO).meta({ description: 'ISO 8601 date or date-time.' }),
    until: z.string(ISO).meta({ description: 'ISO 8601 date or date-time, after `from` and in the future.' }),
    note: z.string().max(MAX_ABSENCE_NOTE_LENGTH).nullish(),
  })
  .meta({ id: 'NewAbsence' });

export const Agent = z
  .strictObject({
    _id: ResourceId,
    name: z.string().nullable(),
    timezone: z.string().nullable().meta({ description: 'IANA time zone its working hours are read in.' }),
    working_hours: WorkingHours.nullable().meta({ description: 'Null: always working.' }),
    presence: z.enum(PRESENCES).meta({ description: 'Routing picks only `available` agents.' }),
    capacity: z.int().min(0).nullable().meta({ description: 'How many clients routing may give it at once; null: the routing policy\'s.' }),
    load: z.int().min(0).meta({ description: 'Read only: its active assignments, whatever made them (assign-agents, rotation, routing).' }),
    created_at: DateTime,
  })
  .meta({ id: 'Agent' });

export const AgentList = z.strictObject({ agents: z.array(Agent).meta({ description: 'Oldest first.' }) }).meta({ id: 'AgentList' });

export const Absence = z.strictObject({ _id: uuid(), from: DateTime, until: DateTime, note: z.string().nullable() }).meta({ id: 'Absence' });

export const AbsenceList = z.strictObject({ absences: z.array(Absence).meta({ description: 'In progress or to come, soonest first.' }) }).meta({ id: 'AbsenceList' });

export const HeldClientList = z
  .strictObject({
    agent: ResourceId,
    clients: z
      .array(
        z.strictObject({
          client: ResourceId,
          dt_until: DateTime.meta({ description: 'When the assignment ends.' }),
          rotation: z.boolean().meta({ description: 'Made by the client\'s rotation.' }),
          assigned_at: DateTime,
          workflow_id: z.string().regex(/^(client|assignment)\//),
        }),
      )
      .meta({ description: 'The clients the agent holds now (an active assignment whose `dt_until` is ahead), oldest assignment first.' }),
    next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
  })
  .meta({ id: 'HeldClientList' });

export const AGENT_SCHEMAS = { requests: [NewAgent, AgentPatch, NewAbsence], responses: [Agent, AgentList, Absence, AbsenceList, HeldClientList] };
