import { endAbsence, insertAbsence, listAbsences } from '../../db/agent-absences';
import type { Scope } from '../../db/scope';
import { absenceView } from '../../views/agent';
import { NotFound } from '../errors';
import { findOwnedAgent } from './owned-agent';
import { parseAbsenceRequest } from './request';
import type { AgentDeps } from './update';
import { wakeWaitingQueues } from '../../starters/routing-queue-workflow';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** POST /agents/{_id}/absences: routing skips the agent from `from` until `until`. */
export async function addAbsence(deps: AgentDeps, scope: Scope, agentId: string, body: unknown) {
  const request = parseAbsenceRequest(body);
  const agent = await findOwnedAgent(deps.prisma, scope, agentId);
  return absenceView(await insertAbsence(deps.prisma, agent.pk, request));
}

/** The absences in progress or to come, soonest first. */
export async function absencesOf(deps: AgentDeps, scope: Scope, agentId: string) {
  const agent = await findOwnedAgent(deps.prisma, scope, agentId);
  return { absences: (await listAbsences(deps.prisma, agent.pk)).map(absenceView) };
}

/** DELETE /agents/{_id}/absences/{id}: the agent is back now; clients waiting for it are looked at again. */
export async function endAgentAbsence(deps: AgentDeps, scope: Scope, agentId: string, absenceId: string) {
  const agent = await findOwnedAgent(deps.prisma, scope, agentId);
  const ended = UUID.test(absenceId) ? await endAbsence(deps.prisma, agent.pk, absenceId) : null;
  if (!ended) throw new NotFound('Absence not found');
  await wakeWaitingQueues(deps, scope);
  return absenceView(ended);
}
