import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { insertAgent, listAgents } from '../../db/agents';
import type { Prisma } from '../../db/prisma';
import { conflict } from '../http/problem';
import { scopeOf } from '../http/scope';
import { optionalName, parseBody, resourceId } from '../../use-cases/input/validation';
import { agentView } from '../../views/agent';

export interface AgentRoutesDeps {
  prisma: Prisma;
}

const createAgentBody = z.object({
  _id: resourceId.optional(),
  name: optionalName,
});

export function agentsRouter({ prisma }: AgentRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.post('/agents', async (req, res) => {
    const body = parseBody(createAgentBody, req.body);
    const scope = scopeOf(req);
    const agent = await insertAgent(prisma, scope, { id: body._id ?? randomUUID(), name: body.name }, () => conflict(`Agent ${body._id} already exists`));
    res.status(201).location(`/ext/v2/${scope.business}/agents/${agent.id}`).json(agentView(agent));
  });

  router.get('/agents', async (req, res) => {
    res.json({ agents: (await listAgents(prisma, scopeOf(req))).map(agentView) });
  });

  return router;
}
