import type { Prisma as Db } from '../../generated/prisma/client';
import { recordForOwner } from '../../db/assignments';
import type { NewEvent } from '../../db/events';
import { activeAssignmentOf, holdingsOf, lastAssignedDecision, type DecidedHolder } from '../../db/routing-decisions';
import { saveStrategyState, settingsOf, strategyStateOf, type PolicyRow } from '../../db/routing-policies';
import { assess, eligibleHolder, pick, routedDtUntil, withHoldersExcluded, type Candidate, type EventReason, type EventType, type Holding, type RecordedAssignment } from '../../domain';
import { routingDecisionView, type DecisionWithKeys } from '../../views/routing-decision';
import { readMembers, type Member } from './members';

/*
 * One look at a policy's team for one client, inside the transaction that holds the policy's lock (one
 * route or drain of a policy at a time) and the members' agent rows (so a route of another policy
 * sharing an agent waits): their loads counted, the pick recorded through the assignment path
 * (recordForOwner) with the strategy's memory. No two routes can both see an agent below capacity and
 * both assign it.
 */

type Tx = Db.TransactionClient;
type Client = { pk: string; id: string };

export interface Attempt {
  candidates: Candidate[];
  members: Member[];
  assigned: (RecordedAssignment & { agentPk: string; assignmentId: string; dtUntil: string }) | null;
  /** The eligible member who holds the client already: the answer, nothing assigned. */
  holder?: Holding;
}

/** A reassignment's look: who may not be picked, what to end first, and whether a holder is the answer. */
export interface Reassigning {
  excluded: ReadonlySet<string>;
  beforeRecord: () => Promise<void>;
  leaving?: string;
  answerHolder?: boolean;
}

/** A decision's routing event: the decision as its GET shows it, and the reason. */
export function routingEvent(type: EventType, d: DecisionWithKeys, scope: { business: string; ownerId: string }, reason: EventReason): NewEvent {
  return { scope, clientPk: d.clientPk, clientId: d.client.id, type, data: { ...routingDecisionView(d), reason } };
}

/** What a decision records of the assignment an attempt made: the policy's version, the agent, and why. */
export const assignedBy = (policy: PolicyRow, assigned: NonNullable<Attempt['assigned']>, candidates: Candidate[], at: Date): DecidedHolder => ({
  version: policy.version,
  agentPk: assigned.agentPk,
  assignmentId: assigned.assignmentId,
  dtUntil: new Date(assigned.dtUntil),
  candidates,
  decidedAt: at,
});

/**
 * Assesses the members and, when `mayAssign` and one is eligible, assigns the client to the pick (sticky
 * first). A client an eligible member holds already is answered with that holder (`answerHolder`: a
 * route or the queue; a reassignment moves the client on instead); a member holding it otherwise is never
 * picked, so an existing assignment's date is never changed by routing.
 */
export async function attempt(
  tx: Tx,
  policy: PolicyRow,
  client: Client,
  at: Date,
  decisionId: string,
  notes: string | null,
  mayAssign: boolean,
  events: NewEvent[],
  reason: 'api' | 'rule',
  reassigning?: Reassigning,
): Promise<Attempt> {
  const scope = { business: policy.business, ownerId: policy.ownerId };
  const settings = settingsOf(policy);
  const members = await readMembers(tx, scope, settings.team, at);
  const assessed = assess(members, settings, at, reassigning?.excluded);
  const holdings = await holdingsOf(tx, client.pk, reassigning?.leaving);
  const holder = !reassigning || reassigning.answerHolder ? eligibleHolder(assessed, holdings) : undefined;
  if (holder) return { candidates: assessed, members, assigned: null, holder };
  const candidates = withHoldersExcluded(assessed, holdings);
  if (!mayAssign) return { candidates, members, assigned: null };

  let choice: string | null = null;
  if (settings.sticky && !reassigning) {
    const last = await lastAssignedDecision(tx, policy.pk, client.pk);
    if (last?.agent && candidates.some((c) => c.agent === last.agent!.id && c.eligible)) choice = last.agent.id;
  }
  if (!choice) {
    const picked = pick(settings.strategy, members, candidates, strategyStateOf(policy));
    if (!picked) return { candidates, members, assigned: null };
    choice = picked.agent;
    await saveStrategyState(tx, policy.pk, picked.state);
  }

  await reassigning?.beforeRecord();
  const dtUntil = routedDtUntil(settings, at);
  const recorded = await recordForOwner(tx, { business: policy.business, clientId: client.id, agents: [{ agentId: choice, dtUntil }] }, scope, notes, {
    events,
    reason,
    routedBy: { policy: policy.id, version: policy.version, decision_id: decisionId },
  });
  if (recorded.outcome !== 'recorded') throw new Error(`Routing could not record the assignment: ${recorded.outcome}`);
  const agentPk = members.find((m) => m.agentId === choice)!.pk;
  const row = await activeAssignmentOf(tx, client.pk, agentPk);
  return { candidates, members, assigned: { ...recorded.assignments[0], agentPk, assignmentId: row.id } };
}
