import { z } from 'zod';
import { listHeldClients } from '../../db/assignments';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { heldClientView } from '../../views/agent';
import { decodeCursor, pageOf, pageQuery, parseQuery } from '../input/page';
import { findOwnedAgent } from './owned-agent';

const ASSIGNMENT_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `GET /agents/{_id}/clients`: one page of the clients the agent holds now (active, `dt_until` ahead), oldest assignment first. */
export async function listHeldClientsRequest(prisma: Prisma, scope: Scope, agentId: string, query: unknown) {
  const { limit, cursor } = parseQuery(z.object(pageQuery), query);
  const agent = await findOwnedAgent(prisma, scope, agentId);
  const after = cursor === undefined ? undefined : decodeCursor(cursor, ASSIGNMENT_KEY);
  const rows = await listHeldClients(prisma, agent.pk, new Date(), after, limit + 1);
  const { page, next_cursor } = pageOf(rows, limit, (a) => ({ createdAt: a.createdAt, id: a.id }));
  return { agent: agent.id, clients: page.map(heldClientView), next_cursor };
}
