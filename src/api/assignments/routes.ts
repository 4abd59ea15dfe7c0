import { Router } from 'express';
import { scopeOf } from '../http/scope';
import { assignAgentsRequest, type AssignDeps } from '../../use-cases/assignments/assign';
import { listAssignments } from '../../use-cases/assignments/list';
import { unassignAgentRequest, type UnassignDeps } from '../../use-cases/assignments/unassign';
import { refuseAnyField } from '../../use-cases/input/known-fields';

export type AssignmentRoutesDeps = AssignDeps & UnassignDeps;

export function assignmentsRouter(deps: AssignmentRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.post('/clients/:clientId/assign-agents', async (req, res) => {
    res.status(200).json(await assignAgentsRequest(deps, scopeOf(req), req.params.clientId, req.body, String(req.id)));
  });

  router.get('/clients/:clientId/agents', async (req, res) => {
    res.json(await listAssignments(deps.prisma, scopeOf(req), req.params.clientId, req.query.status));
  });

  router.delete('/clients/:clientId/agents/:agentId', async (req, res) => {
    refuseAnyField(req.body);
    res.json(await unassignAgentRequest(deps, scopeOf(req), req.params.clientId, req.params.agentId));
  });

  return router;
}
