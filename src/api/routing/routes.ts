import { Router } from 'express';
import { scopeOf } from '../http/scope';
import { policyDetails, policyList, putPolicyRequest, type PolicyDeps } from '../../use-cases/routing/policies';
import { cancelRoute, decisionDetails, decisionList, policyQueue } from '../../use-cases/routing/queue';
import { deletePolicyRequest, deleteTeamRequest } from '../../use-cases/routing/delete';
import { acceptDecisionRequest } from '../../use-cases/routing/answer';
import { rerouteAgentRequest } from '../../use-cases/routing/reroute';
import { routeClientRequest, type RoutingDeps } from '../../use-cases/routing/route';
import { putTeamRequest, teamDetails, teamList } from '../../use-cases/routing/teams';
import { refuseAnyField } from '../../use-cases/input/known-fields';

export type RoutingRoutesDeps = RoutingDeps & PolicyDeps;

export function routingRouter(deps: RoutingRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.put('/teams/:teamId', async (req, res) => {
    res.json(await putTeamRequest(deps, scopeOf(req), req.params.teamId, req.body));
  });
  router.get('/teams', async (req, res) => {
    res.json(await teamList(deps, scopeOf(req)));
  });
  router.get('/teams/:teamId', async (req, res) => {
    res.json(await teamDetails(deps, scopeOf(req), req.params.teamId));
  });
  router.delete('/teams/:teamId', async (req, res) => {
    await deleteTeamRequest(deps, scopeOf(req), req.params.teamId);
    res.status(204).end();
  });

  router.put('/routing-policies/:policyId', async (req, res) => {
    res.json(await putPolicyRequest(deps, scopeOf(req), req.params.policyId, req.body));
  });
  router.get('/routing-policies', async (req, res) => {
    res.json(await policyList(deps, scopeOf(req)));
  });
  router.get('/routing-policies/:policyId', async (req, res) => {
    res.json(await policyDetails(deps, scopeOf(req), req.params.policyId));
  });
  router.delete('/routing-policies/:policyId', async (req, res) => {
    await deletePolicyRequest(deps, scopeOf(req), req.params.policyId);
    res.status(204).end();
  });
  router.get('/routing-policies/:policyId/queue', async (req, res) => {
    res.json(await policyQueue(deps, scopeOf(req), req.params.policyId));
  });

  router.post('/clients/:clientId/route', async (req, res) => {
    const answer = await routeClientRequest(deps, scopeOf(req), req.params.clientId, req.body, req.get('Idempotency-Key'));
    res.status(answer.status === 'queued' ? 202 : 200).json(answer.body);
  });
  router.delete('/clients/:clientId/route', async (req, res) => {
    const policy = typeof req.query.policy === 'string' ? req.query.policy : undefined;
    res.json(await cancelRoute(deps, scopeOf(req), req.params.clientId, policy));
  });

  router.get('/routing-decisions', async (req, res) => {
    res.json(await decisionList(deps, scopeOf(req), req.query));
  });
  router.get('/routing-decisions/:decisionId', async (req, res) => {
    res.json(await decisionDetails(deps, scopeOf(req), req.params.decisionId));
  });
  router.post('/agents/:agentId/reroute', async (req, res) => {
    res.json(await rerouteAgentRequest(deps, scopeOf(req), req.params.agentId, req.body));
  });
  router.post('/routing-decisions/:decisionId/accept', async (req, res) => {
    refuseAnyField(req.body);
    res.json(await acceptDecisionRequest(deps, scopeOf(req), req.params.decisionId));
  });

  return router;
}
