import { randomUUID } from 'node:crypto';
import { insertAgent } from '../../db/agents';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { agentView } from '../../views/agent';
import { Conflict } from '../errors';
import { parseBody } from '../input/validation';
import { NewAgent } from './contract';

/** `POST /agents`: a new agent, under the id the caller chose or a new one; an id the caller already has is a conflict. */
export async function createAgentRequest(prisma: Prisma, scope: Scope, body: unknown) {
  const { _id, name } = parseBody(NewAgent, body);
  const agent = await insertAgent(prisma, scope, { id: _id ?? randomUUID(), name }, () => new Conflict(`Agent ${_id} already exists`));
  return agentView(agent, 0);
}
