import type { Agent, AgentAbsence, Assignment } from '../generated/prisma/client';
import type { Presence, WorkingHours } from '../domain';

/** `GET /agents/{_id}`, an item of `GET /agents`, and the 201 of `POST /agents`: the one agent view; `load` is its active assignments, whatever made them. */
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

/** One item of `GET /agents/{_id}/clients`: a client the agent holds now, and until when. */
export const heldClientView = (a: Assignment & { client: { id: string } }) => ({
  client: a.client.id,
  dt_until: a.dtUntil.toISOString(),
  rotation: a.rotation,
  assigned_at: a.createdAt.toISOString(),
  workflow_id: a.workflowId,
});
