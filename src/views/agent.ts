import type { Assignment } from '../generated/prisma/client';

/** `GET /agents/{_id}`, an item of `GET /agents`, and the 201 of `POST /agents`: the one agent view. */
export const agentView = (a: { id: string; name: string | null; createdAt: Date }) => ({
  _id: a.id,
  name: a.name,
  created_at: a.createdAt.toISOString(),
});

/** One item of `GET /agents/{_id}/clients`: a client the agent holds now, and until when. */
export const heldClientView = (a: Assignment & { client: { id: string } }) => ({
  client: a.client.id,
  dt_until: a.dtUntil.toISOString(),
  rotation: a.rotation,
  assigned_at: a.createdAt.toISOString(),
  workflow_id: a.workflowId,
});
