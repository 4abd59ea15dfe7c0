import { PRESENCES, type WorkingHours } from '../../domain';
import { parseIsoDate } from '../assignments/request';
import { Invalid } from '../errors';
import { parseBody } from '../input/validation';
import { AgentPatch as AgentPatchBody, NewAbsence } from './contract';


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
  const parsed = parseBody(AgentPatchBody, body);
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
  const fields = parseBody(NewAbsence, body);
  const from = parseIsoDate(fields.from);
  if (!from) throw new Invalid(`Invalid from: ${ISO}`);
  const until = parseIsoDate(fields.until);
  if (!until) throw new Invalid(`Invalid until: ${ISO}`);
  if (until.getTime() <= from.getTime()) throw new Invalid('Invalid until: must be after from');
  if (until.getTime() <= Date.now()) throw new Invalid('Invalid until: must be in the future');
  return { from, until, note: fields.note ?? null };
}
