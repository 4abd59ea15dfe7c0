import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import type { Client as TemporalClient } from '@temporalio/client';
import type { Prisma } from '../../db/prisma';
import { searchAttributesOf } from '../../search-attributes';
import { assignAgents } from '../../workflows';
import { assignmentChangedSignal } from '../../workflows/definitions';
import { parseAssignRequest } from '../assign-request';
import { findOwnedClient } from '../owned-client';
import { badRequest, HttpProblem, notFound } from '../problem';
import { scopeOf } from '../scope';
import { RESOURCE_ID_PATTERN } from '../validation';
import { withTimeout } from '../../timeout';

export interface AssignmentRoutesDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
  /** How long a request waits for its validating workflow before answering 504. */
  assignTimeoutMs: number;
  log?: (error: unknown) => void;
}

const STATUS_FILTERS = { active: ['active'], all: ['active', 'expired', 'unassigned'] } as const;


export function assignmentsRouter({ prisma, temporal, taskQueue, assignTimeoutMs, log }: AssignmentRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.post('/clients/:clientId/assign-agents', async (req, res) => {
    const request = parseAssignRequest(req.body);
    const scope = scopeOf(req);
    const clientId = req.params.clientId;
    // Such a client cannot exist, and an overlong id would break the workflow id's length limit.
    if (!RESOURCE_ID_PATTERN.test(clientId)) throw notFound('Client not found');
    const workflowId = `assign-agents/${scope.business}/${clientId}/${randomUUID()}`;
    const deadline = Date.now() + assignTimeoutMs;
    // A start that fails (Temporal unreachable) is a 503 and nothing was assigned; a started workflow
    // that has not finished by the deadline is a 504, and it completes on its own.
    const handle = await temporal.connection.withDeadline(deadline, () =>
      temporal.workflow.start(assignAgents, {
        workflowId,
        taskQueue,
        args: [{ ...scope, clientId, agents: request.agents, notes: request.notes }],
        typedSearchAttributes: searchAttributesOf({ business: scope.business, clientId }),
        staticSummary: `Assign ${request.agents.map((a) => a.agentId).join(', ')} to client ${clientId}`.slice(0, 200),
      }),
    );
    const result = await withTimeout(handle.result(), deadline - Date.now(), () =>
      new HttpProblem(504, `Assignment workflow ${workflowId} did not finish in time; it completes on its own`, '/problems/timeout'),
    );
    res.status(200).json(result);
  });

  router.get('/clients/:clientId/agents', async (req, res) => {
    const filter = req.query.status ?? 'active';
    // hasOwn, not `in`: `?status=toString` must not reach the prototype.
    if (typeof filter !== 'string' || !Object.hasOwn(STATUS_FILTERS, filter)) throw badRequest('Invalid status: use active or all');
    const client = await findOwnedClient(prisma, scopeOf(req), req.params.clientId);
    const assignments = await prisma.assignment.findMany({
      where: { clientPk: client.pk, status: { in: [...STATUS_FILTERS[filter as keyof typeof STATUS_FILTERS]] } },
      include: { agent: { select: { id: true } } },
      orderBy: [{ createdAt: 'asc' }],
    });
    res.json({
      client: client.id,
      assignments: assignments.map((a) => ({
        agent: a.agent.id,
        dt_until: a.dtUntil.toISOString(),
        status: a.status,
        ds_notes: a.notes,
        workflow_id: a.workflowId,
        assigned_at: a.createdAt.toISOString(),
        updated_at: a.updatedAt.toISOString(),
        ended_at: a.endedAt?.toISOString() ?? null,
      })),
    });
  });

  router.delete('/clients/:clientId/agents/:agentId', async (req, res) => {
    const scope = scopeOf(req);
    const client = await findOwnedClient(prisma, scope, req.params.clientId);
    const now = new Date();
    const active = await prisma.assignment.findFirst({
      where: { clientPk: client.pk, status: 'active', agent: { id: req.params.agentId, ...scope } },
    });
    const ended = active
      ? await prisma.assignment.updateMany({
          where: { id: active.id, status: 'active' },
          data: { status: 'unassigned', activeSlot: null, endedAt: now },
        })
      : { count: 0 };
    if (!active || ended.count === 0) throw notFound(`Agent ${req.params.agentId} is not assigned to this client`);
    try {
      await temporal.workflow.getHandle(active.workflowId).signal(assignmentChangedSignal);
    } catch (error) {
      // The row is already unassigned, which is the answer; a workflow that missed the signal reads the
      // row at its next wake-up (at most one timer chunk away) and ends then.
      if ((error as Error).name !== 'WorkflowNotFoundError') log?.(error);
    }
    res.json({
      client: client.id,
      agent: req.params.agentId,
      dt_until: active.dtUntil.toISOString(),
      status: 'unassigned',
      ended_at: now.toISOString(),
      workflow_id: active.workflowId,
    });
  });

  return router;
}
