import { z } from 'zod';
import { PRESENCES, type WorkingHours } from '../../domain';
import { parseIsoDate } from '../assignments/request';
import { Invalid } from '../errors';
import { timeZone } from '../input/time-zone';
import { optionalName, parseBody } from '../input/validation';

export const MAX_CAPACITY = 10_000;
const MAX_INTERVALS_PER_DAY = 12;
export const MAX_ABSENCE_NOTE_LENGTH = 500;

const CLOCK = /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/;

const interval = z
  .tuple([z.string().regex(CLOCK, 'must be HH:MM between 00:00 and 24:00'), z.string().regex(CLOCK, 'must be HH:MM between 00:00 and 24:00')])
  .refine(([from, to]) => from < to, 'must end after it starts (split a night shift at midnight)');

const day = z.array(interval).max(MAX_INTERVALS_PER_DAY).optional();
const workingHours = z.strictObject({ mon: day, tue: day, wed: day, thu: day, fri: day, sat: day, sun: day });

/** PATCH /agents/{_id} as JSON merge patch (RFC 7396): a field absent stays, a field null goes back to its default. */
const agentPatch = z.object({
  name: optionalName,
  timezone: timeZone.nullish(),
  working_hours: workingHours.nullish(),
  presence: z.enum(PRESENCES).nullish(),
  capacity: z.number().int().min(0).max(MAX_CAPACITY).nullish(),
});

export interface AgentPatch {
  name?: string | null;
  timezone?: string | null;
  workingHours?: WorkingHours | null;
  presence?: (typeof PRESENCES)[number];
  capacity?: number | null;
}

export function parseAgentPatch(body: unknown): AgentPatch {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Invalid('Invalid request body: must be a JSON object (a merge patch)');
  const fields = body as Record<string, unknown>;
  const parsed = parseBody(agentPatch, body);
  const has = (key: string) => Object.hasOwn(fields, key);
  const hours = parsed.working_hours && (Object.fromEntries(Object.entries(parsed.working_hours).filter(([, v]) => v !== undefined)) as WorkingHours);
  return {
    ...(has('name') && { name: parsed.name }),
    ...(has('timezone') && { timezone: parsed.timezone ?? null }),
    ...(has('working_hours') && { workingHours: hours ?? null }),
    ...(has('presence') && { presence: parsed.presence ?? 'available' }),
    ...(has('capacity') && { capacity: parsed.capacity ?? null }),
  };
}

export interface AbsenceRequest {
  from: Date;
  until: Date;
  note: string | null;
}

const ISO = 'must be an ISO 8601 date or date-time';

export function parseAbsenceRequest(body: unknown): AbsenceRequest {
  const fields = parseBody(z.object({ from: z.string(ISO), until: z.string(ISO), note: z.string().max(MAX_ABSENCE_NOTE_LENGTH).nullish() }), body);
  const from = parseIsoDate(fields.from);
  if (!from) throw new Invalid(`Invalid from: ${ISO}`);
  const until = parseIsoDate(fields.until);
  if (!until) throw new Invalid(`Invalid until: ${ISO}`);
  if (until.getTime() <= from.getTime()) throw new Invalid('Invalid until: must be after from');
  if (until.getTime() <= Date.now()) throw new Invalid('Invalid until: must be in the future');
  return { from, until, note: fields.note ?? null };
}
