import { Router } from 'express';
import { scopeOf } from '../http/scope';
import { absencesOf, addAbsence, endAgentAbsence } from '../../use-cases/agents/absences';
import { agentDetails, patchAgent, type AgentDeps } from '../../use-cases/agents/update';
import { createAgentRequest } from '../../use-cases/agents/create';
import { listAgentsRequest } from '../../use-cases/agents/list';
import { deleteAgent, type DeleteAgentDeps } from '../../use-cases/agents/delete';
import { listHeldClientsRequest } from '../../use-cases/agents/held-clients';

export type AgentRoutesDeps = AgentDeps & DeleteAgentDeps;

export function agentsRouter(deps: AgentRoutesDeps): Router {
  const { prisma } = deps;
  const router = Router({ mergeParams: true });

  router.post('/agents', async (req, res) => {
    const scope = scopeOf(req);
    const agent = await createAgentRequest(prisma, scope, req.body);
    res.status(201).location(`/ext/v2/${scope.business}/agents/${agent._id}`).json(agent);
  });

  router.get('/agents', async (req, res) => {
    res.json(await listAgentsRequest(prisma, scopeOf(req)));
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
