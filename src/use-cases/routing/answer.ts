import type { Client as TemporalClient } from '@temporalio/client';
import { findDecision, markAnswered } from '../../db/routing-decisions';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { lookAtFirstResponses } from '../../starters/first-response-workflow';
import { routingDecisionView } from '../../views/routing-decision';
import { Conflict, NotFound } from '../errors';
import { RESOURCE_ID_PATTERN } from '../input/validation';

export interface AnswerDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
  log?: (error: unknown) => void;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The owner answered the client: the first-response clocks of the routing decisions that gave it this
 * client stop. The row is the truth; the client's run is told only to drop the timer early, best effort:
 * at the deadline it reads the row anyway.
 */
export async function answerFirstResponse(deps: AnswerDeps, where: { clientPk: string; agentPk: string } | { id: string }, at = new Date()): Promise<void> {
  const answered = await markAnswered(deps.prisma, where, at);
  if (answered.length === 0) return;
  const [{ business, clientPk, client }] = answered;
  await lookAtFirstResponses(deps.temporal, deps.taskQueue, { business, clientId: client.id, clientPk }).catch((error: unknown) => deps.log?.(error));
}

/**
 * POST /routing-decisions/{id}/accept: the current owner takes the client; the clock stops. Accepting
 * again answers the same. A decision that assigns nobody (queued, rejected, canceled) is a 409.
 */
export async function acceptDecisionRequest(deps: AnswerDeps, scope: Scope, id: string) {
  const decision = UUID.test(id) && RESOURCE_ID_PATTERN.test(id) ? await findDecision(deps.prisma, scope, id) : null;
  if (!decision) throw new NotFound('Routing decision not found');
  if (decision.status !== 'assigned') throw new Conflict(`Routing decision ${decision.id} is ${decision.status}: there is no owner to accept it`);
  if (!decision.answeredAt) await answerFirstResponse(deps, { id: decision.id });
  return routingDecisionView((await findDecision(deps.prisma, scope, id))!);
}
