import { Router } from 'express';
import { listClientAssignments } from '../../db/assignments';
import { ASSIGNMENT_STATUSES } from '../../workflows/definitions';
import { findOwnedClient } from '../clients/owned-client';
import { badRequest, notFound } from '../http/problem';
import { scopeOf } from '../http/scope';
import { RESOURCE_ID_PATTERN } from '../http/validation';
import { assignAgents, type AssignDeps } from './assign';
import { parseAssignRequest } from './request';
import { unassignAgent, type UnassignDeps } from './unassign';
import { assignmentView } from './view';

export type AssignmentRoutesDeps = AssignDeps & UnassignDeps;

const STATUS_FILTERS = { active: ['active'], all: ASSIGNMENT_STATUSES } as const;

export function assignmentsRouter(deps: AssignmentRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.post('/clients/:clientId/assign-agents', async (req, res) => {
    const request = parseAssignRequest(req.body);
    const clientId = req.params.clientId;
    // Such a client cannot exist, and an overlong id would break the workflow id's length limit.
    if (!RESOURCE_ID_PATTERN.test(clientId)) throw notFound('Client not found');
    res.status(200).json(await assignAgents(deps, scopeOf(req), clientId, request, String(req.id)));
  });

  router.get('/clients/:clientId/agents', async (req, res) => {
    const filter = req.query.status ?? 'active';
    // hasOwn, not `in`: `?status=toString` must not reach the prototype.
    if (typeof filter !== 'string' || !Object.hasOwn(STATUS_FILTERS, filter)) throw badRequest('Invalid status: use active or all');
    const client = await findOwnedClient(deps.prisma, scopeOf(req), req.params.clientId);
    const assignments = await listClientAssignments(deps.prisma, client.pk, STATUS_FILTERS[filter as keyof typeof STATUS_FILTERS]);
    res.json({ client: client.id, assignments: assignments.map(assignmentView) });
  });

  router.delete('/clients/:clientId/agents/:agentId', async (req, res) => {
    const scope = scopeOf(req);
    const client = await findOwnedClient(deps.prisma, scope, req.params.clientId);
    res.json(await unassignAgent(deps, scope, client, req.params.agentId));
  });

  return router;
}
