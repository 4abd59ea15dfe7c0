import { DEFAULT_DT_UNTIL } from '../../domain';
import { isStorableDate } from '../../db/errors';
import { Invalid } from '../errors';
import { isBlank } from '../input/validation';
import { fieldsOfSchema, type Fields } from '../input/known-fields';
import { AssignAgentsRequest, MAX_AGENTS_PER_REQUEST, MAX_NOTES_LENGTH } from './contract';

export { MAX_AGENTS_PER_REQUEST, MAX_NOTES_LENGTH } from './contract';

/** The body's fields (the contract's); any other is `Unknown field: {path}`, checked after the contract's checks 1-7 (assign.ts). */
export const ASSIGN_FIELDS = fieldsOfSchema(AssignAgentsRequest) as Fields;

export interface AssignRequest {
  agents: { agentId: string; dtUntil: string }[];
  notes: string | null;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Reads an ISO 8601 date or date-time. A date alone is 00:00:00 UTC of that day, and so is a
 * date-time without an offset. Returns undefined for anything else, including impossible dates and
 * instants that an offset pushes outside the years 0001–9999 in UTC, which the database cannot hold.
 */
export function parseIsoDate(value: string): Date | undefined {
  const dateOnly = ISO_DATE.exec(value);
  const dateTime = dateOnly ? undefined : ISO_DATE_TIME.exec(value);
  const parts = dateOnly ?? dateTime;
  if (!parts) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00'] = parts;
  if (+mo < 1 || +mo > 12 || +d < 1 || +d > 31 || +h > 23 || +mi > 59 || +s > 59) return undefined;
  const calendarDay = new Date(Date.UTC(+y, +mo - 1, +d));
  if (calendarDay.getUTCMonth() !== +mo - 1) return undefined;
  const normalised = dateOnly ? `${value}T00:00:00Z` : dateTime![7] ? value : `${value}Z`;
  const date = new Date(normalised.replace(/([+-]\d{2}):?(\d{2})?$/, (_, hours, minutes = '00') => `${hours}:${minutes}`));
  return isStorableDate(date) ? date : undefined;
}

/** The checks of the assignment request, in the order the contract gives them. */
export function parseAssignRequest(body: unknown, now = new Date()): AssignRequest {
  const fields = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const agents = fields.agents;
  if (!Array.isArray(agents) || agents.length === 0) throw new Invalid('Missing or invalid agents array');

  const agentIds = agents.map((element) => {
    const id = typeof element === 'object' && element !== null ? (element as Record<string, unknown>).agent : undefined;
    if (typeof id !== 'string' || isBlank(id)) throw new Invalid('Invalid agent data: missing agent ID');
    return id;
  });

  const parsed = agents.map((element: Record<string, unknown>, i) => {
    const agentId = agentIds[i];
    const raw = element.dt_until;
    if (raw === undefined || raw === null) return { agentId, dtUntil: DEFAULT_DT_UNTIL };
    const date = typeof raw === 'string' ? parseIsoDate(raw) : undefined;
    if (!date) throw new Invalid(`Invalid dt_until for agent ${agentId}: must be an ISO 8601 date or date-time`);
    if (date.getTime() <= now.getTime()) throw new Invalid(`Invalid dt_until for agent ${agentId}: must be in the future`);
    return { agentId, dtUntil: date.toISOString() };
  });

  if (parsed.length > MAX_AGENTS_PER_REQUEST) {
    throw new Invalid(`Too many agents: at most ${MAX_AGENTS_PER_REQUEST} per request`);
  }
  const seen = new Set<string>();
  for (const { agentId } of parsed) {
    if (seen.has(agentId)) throw new Invalid(`Duplicate agent ${agentId} in agents array`);
    seen.add(agentId);
  }

  const notes = fields.ds_notes;
  if (notes !== undefined && notes !== null && (typeof notes !== 'string' || notes.length > MAX_NOTES_LENGTH)) {
    throw new Invalid(`Invalid ds_notes: must be a string of at most ${MAX_NOTES_LENGTH} characters`);
  }
  return { agents: parsed, notes: (notes as string | null | undefined) ?? null };
}
