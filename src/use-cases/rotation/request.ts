import type { RotationRequestData } from '../../domain/rotation-advance';
import { DEFAULT_MIN_PERIOD_MS, MAX_PERIOD_MS } from '../../domain/rotation-schedule';
import { MAX_AGENTS_PER_REQUEST, MAX_NOTES_LENGTH, parseIsoDate } from '../assignments/request';
import { Invalid } from '../errors';
import { isBlank } from '../input/validation';
import { fieldsOfSchema, refuseUnknownFields, type Fields } from '../input/known-fields';
import { parseDelay } from '../messages/delay';
import { RotationRequest } from './contract';

export const MAX_STARTS_AT_DISTANCE_MS = MAX_PERIOD_MS;

/** The body's fields (the contract's); any other is `Unknown field: {path}`, checked last. */
const ROTATION_FIELDS = fieldsOfSchema(RotationRequest) as Fields;

export interface RotationRequestLimits {
  /** The shortest period accepted: one minute, shorter only in tests. */
  minPeriodMs?: number;
  now?: Date;
}

/** "1 minute", "2 seconds": the period limit as the error text names it. */
export function durationText(ms: number): string {
  const [amount, unit] = ms % 60_000 === 0 ? [ms / 60_000, 'minute'] : ms % 1000 === 0 ? [ms / 1000, 'second'] : [ms, 'millisecond'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}

function parsePeriod(raw: unknown, minPeriodMs: number): { period: string; periodMs: number } {
  const unreadable = 'Invalid period: must be an ISO 8601 duration such as P7D or PT8H, or a length such as 8h, 30m or 2d';
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) throw new Invalid(unreadable);
  const delay = parseDelay(raw);
  if (!delay) throw new Invalid(unreadable);
  if (delay.years > 0 || delay.months > 0) {
    throw new Invalid('Invalid period: must be a fixed length (weeks, days, hours, minutes, seconds), not months or years');
  }
  const periodMs = delay.days * 86_400_000 + delay.milliseconds;
  if (periodMs < minPeriodMs || periodMs > MAX_PERIOD_MS) throw new Invalid(`Invalid period: must be between ${durationText(minPeriodMs)} and 10 years`);
  return { period: String(raw).trim(), periodMs };
}

/**
 * The checks of a rotation request, in the style and order of assign-agents: the agents array, each
 * agent id, their number and duplicates, then the period, `starts_at`, `ds_notes`, `apply` and an unknown field. The
 * client and the agents' ownership are checked against the database afterwards.
 */
export function parseRotationRequest(body: unknown, limits: RotationRequestLimits = {}): RotationRequestData {
  const now = limits.now ?? new Date();
  const fields = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const agents = fields.agents;
  if (!Array.isArray(agents) || agents.length === 0) throw new Invalid('Missing or invalid agents array');
  const agentIds = agents.map((id) => {
    if (typeof id !== 'string' || isBlank(id)) throw new Invalid('Invalid agent data: missing agent ID');
    return id;
  });
  if (agentIds.length > MAX_AGENTS_PER_REQUEST) throw new Invalid(`Too many agents: at most ${MAX_AGENTS_PER_REQUEST} per rotation`);
  const seen = new Set<string>();
  for (const agentId of agentIds) {
    if (seen.has(agentId)) throw new Invalid(`Duplicate agent ${agentId} in agents array`);
    seen.add(agentId);
  }

  const { period, periodMs } = parsePeriod(fields.period, limits.minPeriodMs ?? DEFAULT_MIN_PERIOD_MS);

  let startsAt: Date | null = null;
  if (fields.starts_at !== undefined && fields.starts_at !== null) {
    const date = typeof fields.starts_at === 'string' ? parseIsoDate(fields.starts_at) : undefined;
    if (!date) throw new Invalid('Invalid starts_at: must be an ISO 8601 date or date-time');
    if (Math.abs(date.getTime() - now.getTime()) > MAX_STARTS_AT_DISTANCE_MS) throw new Invalid('Invalid starts_at: must be within 10 years of now');
    startsAt = date;
  }

  const notes = fields.ds_notes;
  if (notes !== undefined && notes !== null && (typeof notes !== 'string' || notes.length > MAX_NOTES_LENGTH)) {
    throw new Invalid(`Invalid ds_notes: must be a string of at most ${MAX_NOTES_LENGTH} characters`);
  }

  const apply = fields.apply;
  if (apply !== undefined && apply !== null && apply !== 'now') throw new Invalid('Invalid apply: must be "now" or absent');
  refuseUnknownFields(fields, ROTATION_FIELDS);

  return { agentIds, period, periodMs, startsAt, notes: (notes as string | null | undefined) ?? null, applyNow: apply === 'now' };
}
