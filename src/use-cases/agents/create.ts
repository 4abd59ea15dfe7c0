import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { insertAgent } from '../../db/agents';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { agentView } from '../../views/agent';
import { Conflict } from '../errors';
import { optionalName, parseBody, resourceId } from '../input/validation';

const createAgentBody = z.object({
  _id: resourceId.optional(),
  name: optionalName,
});

/** `POST /agents`: a new agent, under the id the caller chose or a new one; an id the caller already has is a conflict. */
export async function createAgentRequest(prisma: Prisma, scope: Scope, body: unknown) {
  const { _id, name } = parseBody(createAgentBody, body);
  const agent = await insertAgent(prisma, scope, { id: _id ?? randomUUID(), name }, () => new Conflict(`Agent ${_id} already exists`));
  return agentView(agent, 0);
}
