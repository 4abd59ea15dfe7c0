import type { Agent, AgentAbsence } from '../generated/prisma/client';
import type { Presence, WorkingHours } from '../domain';

/** An agent as every route shows it; `load` is its active assignments, whatever made them. */
export const agentView = (a: Agent, load: number) => ({
  _id: a.id,
  name: a.name,
  timezone: a.timezone,
  working_hours: (a.workingHours as WorkingHours | null) ?? null,
  presence: a.presence as Presence,
  capacity: a.capacity,
  load,
  created_at: a.createdAt.toISOString(),
});

/** One absence of `GET /agents/{_id}/absences`. */
export const absenceView = (a: AgentAbsence) => ({
  _id: a.id,
  from: a.from.toISOString(),
  until: a.until.toISOString(),
  note: a.note,
});
