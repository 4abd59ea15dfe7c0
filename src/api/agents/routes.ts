import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { insertAgent, listAgents, loadsOf } from '../../db/agents';
import { conflict } from '../http/problem';
import { scopeOf } from '../http/scope';
import { optionalName, parseBody, resourceId } from '../../use-cases/input/validation';
import { absencesOf, addAbsence, endAgentAbsence } from '../../use-cases/agents/absences';
import { agentDetails, patchAgent, type AgentDeps } from '../../use-cases/agents/update';
import { agentView } from '../../views/agent';
import { deleteAgent, type DeleteAgentDeps } from '../../use-cases/agents/delete';
import { listHeldClientsRequest } from '../../use-cases/agents/held-clients';

export type AgentRoutesDeps = AgentDeps & DeleteAgentDeps;

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
    res.status(201).location(`/ext/v2/${scope.business}/agents/${agent.id}`).json(agentView(agent, 0));
  });

  router.get('/agents', async (req, res) => {
    const agents = await listAgents(prisma, scopeOf(req));
    const loads = await loadsOf(prisma, agents.map((a) => a.pk));
    res.json({ agents: agents.map((a) => agentView(a, loads.get(a.pk) ?? 0)) });
  });

  router.get('/agents/:agentId', async (req, res) => {
    res.json(await agentDetails(deps, scopeOf(req), req.params.agentId));
  });

  router.patch('/agents/:agentId', async (req, res) => {
    res.json(await patchAgent(deps, scopeOf(req), req.params.agentId, req.body));
  });

  router.post('/agents/:agentId/absences', async (req, res) => {
    res.status(201).json(await addAbsence(deps, scopeOf(req), req.params.agentId, req.body));
  });

  router.get('/agents/:agentId/absences', async (req, res) => {
    res.json(await absencesOf(deps, scopeOf(req), req.params.agentId));
  });

  router.delete('/agents/:agentId/absences/:absenceId', async (req, res) => {
    res.json(await endAgentAbsence(deps, scopeOf(req), req.params.agentId, req.params.absenceId));
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
