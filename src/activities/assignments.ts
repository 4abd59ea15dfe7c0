import { ApplicationFailure } from '@temporalio/common';
import type { Client as TemporalClient } from '@temporalio/client';
import type { Prisma } from '../db/prisma';
import {
  assignmentChangedSignal,
  assignmentWorkflowId,
  FailureType,
  type AssignAgentsInput,
  type AssignmentExpiryInput,
  type ExpiryCheck,
  type RecordedAssignment,
} from '../workflows/definitions';
import { searchAttributesOf } from '../search-attributes';

export interface AssignmentActivityDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
}

type Pair = { clientPk: string; agentPk: string };

export function createAssignmentActivities({ prisma, temporal, taskQueue }: AssignmentActivityDeps) {
  return {
    /** Checks that the client and every agent are the caller's, then records all assignments or none. */
    async recordAssignments(input: AssignAgentsInput): Promise<RecordedAssignment[]> {
      return prisma.$transaction(async (tx) => {
        const owner = { business: input.business, ownerId: input.ownerId };
        const client = await tx.client.findUnique({ where: { business_ownerId_id: { ...owner, id: input.clientId } } });
        if (!client) {
          throw ApplicationFailure.create({ type: FailureType.ClientNotFound, message: 'Client not found', nonRetryable: true });
        }
        const agents = await tx.agent.findMany({ where: { ...owner, id: { in: input.agents.map((a) => a.agentId) } } });
        const agentPks = new Map(agents.map((a) => [a.id, a.pk]));
        const missing = input.agents.find((a) => !agentPks.has(a.agentId));
        if (missing) {
          throw ApplicationFailure.create({
            type: FailureType.AgentNotAuthorized,
            message: `Agent ${missing.agentId} not found or not authorized`,
            nonRetryable: true,
          });
        }
        const recorded: RecordedAssignment[] = [];
        for (const { agentId, dtUntil } of input.agents) {
          const agentPk = agentPks.get(agentId)!;
          const workflowId = assignmentWorkflowId({ ...owner, clientId: input.clientId, agentId });
          const active = await tx.assignment.findFirst({ where: { clientPk: client.pk, agentPk, status: 'active' } });
          const data = { dtUntil: new Date(dtUntil), notes: input.notes, workflowId };
          if (active) {
            await tx.assignment.update({ where: { id: active.id }, data: { ...data, revision: { increment: 1 } } });
          } else {
            await tx.assignment.create({ data: { ...data, clientPk: client.pk, agentPk } });
          }
          recorded.push({
            agentId,
            dtUntil: data.dtUntil.toISOString(),
            workflowId,
            expiry: { ...owner, clientId: input.clientId, agentId, clientPk: client.pk, agentPk, dtUntil: data.dtUntil.toISOString() },
          });
        }
        return recorded;
      });
    },

    /** Starts the expiry workflow of each pair, or wakes the running one to re-read its new date. */
    async scheduleAssignmentExpiries(expiries: AssignmentExpiryInput[]): Promise<void> {
      await Promise.all(
        expiries.map((expiry) =>
          temporal.workflow.signalWithStart('assignmentExpiry', {
            workflowId: assignmentWorkflowId(expiry),
            taskQueue,
            args: [expiry],
            signal: assignmentChangedSignal,
            signalArgs: [],
            typedSearchAttributes: searchAttributesOf(expiry),
            staticSummary: `Agent ${expiry.agentId} on client ${expiry.clientId}: expires the assignment at its dt_until`,
          }),
        ),
      );
    },

    async loadActiveAssignment(pair: Pair): Promise<{ dtUntil: string } | null> {
      const active = await prisma.assignment.findFirst({ where: { ...pair, status: 'active' }, select: { dtUntil: true } });
      return active && { dtUntil: active.dtUntil.toISOString() };
    },

    /** Marks the pair's active assignment expired if its date has come; otherwise says what is there. */
    async expireAssignmentIfDue(pair: Pair): Promise<ExpiryCheck> {
      const now = new Date();
      const expired = await prisma.assignment.updateMany({
        where: { ...pair, status: 'active', dtUntil: { lte: now } },
        data: { status: 'expired', activeSlot: null, endedAt: now },
      });
      if (expired.count > 0) return { status: 'expired' };
      const active = await prisma.assignment.findFirst({ where: { ...pair, status: 'active' }, select: { dtUntil: true } });
      return active ? { status: 'active', dtUntil: active.dtUntil.toISOString() } : { status: 'none' };
    },
  };
}
