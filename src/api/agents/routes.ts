import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { insertAgent, listAgents } from '../../db/agents';
import { conflict } from '../http/problem';
import { scopeOf } from '../http/scope';
import { optionalName, parseBody, resourceId } from '../../use-cases/input/validation';
import { agentView } from '../../views/agent';
import { findOwnedAgent } from '../../use-cases/agents/owned-agent';
import { deleteAgent, type DeleteAgentDeps } from '../../use-cases/agents/delete';
import { listHeldClientsRequest } from '../../use-cases/agents/held-clients';

export type AgentRoutesDeps = DeleteAgentDeps;

const createAgentBody = z.object({
  _id: resourceId.optional(),
  name: optionalName,
});

export function agentsRouter(deps: AgentRoutesDeps): Router {
  const { prisma } = deps;
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

  router.get('/agents/:agentId', async (req, res) => {
    res.json(agentView(await findOwnedAgent(prisma, scopeOf(req), req.params.agentId)));
  });

  router.delete('/agents/:agentId', async (req, res) => {
    await deleteAgent(deps, scopeOf(req), req.params.agentId);
    res.status(204).end();
  });

  router.get('/agents/:agentId/clients', async (req, res) => {
    res.json(await listHeldClientsRequest(prisma, scopeOf(req), req.params.agentId, req.query));
  });

  return router;
}
