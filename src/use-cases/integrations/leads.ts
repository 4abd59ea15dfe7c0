import type { Client as TemporalClient } from '@temporalio/client';
import type { CrmEndpoints } from '../../config/index';
import type { OutboundNetwork } from '../../net/outbound';
import { crmApiOf } from '../../crm';
import { findClient, upsertClient } from '../../db/clients';
import { findBusinessConnector } from '../../db/crm-connectors';
import { lockErasedRecord } from '../../db/crm-erased-records';
import { findInboundEvent, markEventProcessed, markEventsErased, nextPendingEvent } from '../../db/crm-inbound-events';
import { findLead, followCrmOwner, insertLeadDecision, markLeadAssigned, markLeadRouted, markLeadUnrouted, markOwnerWriteFailed, markOwnerWritten, type LeadKey } from '../../db/crm-leads';
import { findDecisionByKey } from '../../db/routing-decisions';
import type { Scope } from '../../db/scope';
import { withEvents } from '../../db/events';
import type { Prisma } from '../../db/prisma';
import { crmClientId, DEFAULT_DT_UNTIL, type ProcessCrmLeadInput } from '../../domain';
import type { SecretBox } from '../../secrets/secret-box';
import { ownerConflictData, ownerSyncFailedData } from '../../views/crm-lead';
import { assignAgents } from '../assignments/assign';
import { unassignAgent } from '../assignments/unassign';
import { Conflict, NotFound } from '../errors';
import { NO_AGENT_AVAILABLE, routeClientRequest } from '../routing/route';
import { isTimeZone } from '../input/time-zone';
import { normalisePhone } from '../input/validation';
import { agentOfCrmOwner, crmOwnerOf, leadRoutingKey } from './choose-owner';
import { erasedRecordKey, isErasedLead } from './erased-leads';
import { openCrmSecrets } from './connectors';

/*
 * The steps of a CRM lead, each safe to repeat (the workflow's activities call them, and an activity
 * may run again after a crash): the client made or brought up to date from the CRM, the decision made
 * once, the agents assigned through the assign-agents use case, the owner written back, a change of
 * owner in the CRM told apart from our own write echoing back.
 */

export interface LeadDeps {
  prisma: Prisma;
  secrets: SecretBox;
  temporal: TemporalClient;
  taskQueue: string;
  crmEndpoints?: CrmEndpoints;
  /** What the CRMs' SDKs connect through (the public-address guard in production). */
  crmNetwork?: OutboundNetwork;
  /** How long an assignment request waits for its workflow. */
  assignTimeoutMs?: number;
}

const CRM_NAMES = { hubspot: 'HubSpot', salesforce: 'Salesforce', pipedrive: 'Pipedrive' } as const;
export const connectorGone = (input: ProcessCrmLeadInput) => new NotFound(`The business has no ${input.crm} connector any more`);

async function connectorOf(deps: LeadDeps, input: ProcessCrmLeadInput) {
  const connector = await findBusinessConnector(deps.prisma, input.business, input.crm);
  if (!connector) throw connectorGone(input);
  const api = crmApiOf(input.crm, connector.settings as Record<string, string>, openCrmSecrets(deps.secrets, connector.secrets), deps.crmEndpoints, deps.crmNetwork);
  return { connector, api, scope: { business: connector.business, ownerId: connector.ownerId } };
}

const keyOf = (input: ProcessCrmLeadInput): LeadKey => ({ business: input.business, crm: input.crm, recordId: input.recordId });

/**
 * The record's oldest event not yet handled: its id and kind, nothing personal. A record whose client
 * was erased has none to handle: its events are stamped `erased` (ignored) and lose its id.
 */
export async function nextCrmEvent(deps: Pick<LeadDeps, 'prisma' | 'secrets'>, input: ProcessCrmLeadInput) {
  const event = await nextPendingEvent(deps.prisma, input.business, input.crm, input.recordId);
  if (!event) return null;
  if (await isErasedLead(deps.prisma, deps.secrets, input)) {
    await markEventsErased(deps.prisma, input);
    return null;
  }
  return { eventId: event.id, kind: event.kind };
}

export async function finishCrmEvent(deps: Pick<LeadDeps, 'prisma'>, eventId: string, outcome: string): Promise<void> {
  if (outcome === 'erased') await markEventsErased(deps.prisma, { id: eventId });
  else await markEventProcessed(deps.prisma, eventId, outcome);
}

/**
 * Reads the record through the CRM's SDK and makes or updates its client (`hubspot:<id>`, …): name,
 * phone in E.164 (left out when the CRM's is not one), time zone when the CRM has one. False when
 * the CRM no longer has the record; `erased` when its client was erased (then nothing is made: the
 * check and the write hold the record's erasure lock, so an erasure racing them is seen or comes after).
 */
export async function syncLeadClient(deps: LeadDeps, input: ProcessCrmLeadInput): Promise<boolean | 'erased'> {
  if (await isErasedLead(deps.prisma, deps.secrets, input)) return 'erased';
  const { api, scope } = await connectorOf(deps, input);
  const record = await api.fetchRecord(input.recordId);
  if (!record) return false;
  const timezone = record.timezone && isTimeZone(record.timezone) ? record.timezone : null;
  const phone = record.phone ? (normalisePhone(record.phone) ?? null) : null;
  const client = { id: crmClientId(input.crm, input.recordId), name: record.name?.slice(0, 200) ?? null, phone, timezone };
  return deps.prisma.$transaction(async (tx) => {
    await lockErasedRecord(tx, erasedRecordKey(deps.secrets, input));
    if (await isErasedLead(tx, deps.secrets, input)) return 'erased' as const;
    await upsertClient(tx, scope, client);
    return true;
  });
}

/**
 * The decision, made once per record. A connector naming `agents`: those agents, and the first one's
 * CRM owner id. A connector naming a `policy`: the client is routed by it (Idempotency-Key derived from
 * the record, so a repeat answers the same decision) — assigned: that agent and its CRM owner id;
 * queued: decided, the owner written once the queue assigns (`awaitLeadRouting`); nobody eligible under
 * `when_none_eligible: reject`: `rejected`, reported as `crm.owner_sync_failed`. Without a CRM owner in
 * `agent_map` nothing is written back, which `crm.owner_sync_failed` reports.
 */
export async function decideLead(deps: LeadDeps, input: ProcessCrmLeadInput) {
  const { connector, scope } = await connectorOf(deps, input);
  const clientId = crmClientId(input.crm, input.recordId);
  const earlier = await findLead(deps.prisma, keyOf(input));
  if (earlier) return { agents: earlier.agents, writeStatus: earlier.writeStatus, decidedNow: false };
  const client = await findClient(deps.prisma, scope, clientId);
  if (!client) throw new NotFound(`Client ${clientId} not found`);
  const routed = connector.policy ? await routeLead(deps, scope, clientId, connector.policy, input) : null;
  const agents = routed ? (routed.agent ? [routed.agent] : []) : [...connector.agents];
  const crmOwnerId = agents.length ? crmOwnerOf(connector.agentMap, agents[0]) : null;
  const writeStatus = routed?.status === 'queued' ? 'queued' : routed?.status === 'rejected' ? 'rejected' : crmOwnerId ? 'pending' : 'unmapped';
  const { lead, decidedNow } = await withEvents(deps.prisma, async (tx, record) => {
    const decided = await insertLeadDecision(tx, { ...keyOf(input), ownerId: scope.ownerId, clientId, agents, crmOwnerId, writeStatus, assignedAt: routed?.agent ? new Date() : null });
    if (decided.decidedNow && (writeStatus === 'unmapped' || writeStatus === 'rejected')) {
      const error =
        writeStatus === 'rejected'
          ? `No agent of routing policy ${connector.policy} is available: the lead was not assigned and no owner written back`
          : agents.length
            ? unmappedError(input, agents[0])
            : 'The connector names no agents';
      await record({ scope, clientPk: client.pk, clientId, type: 'crm.owner_sync_failed', data: ownerSyncFailedData({ clientId, ...input }, agents[0] ?? null, null, error) });
    }
    return decided;
  });
  return { agents: lead.agents, writeStatus: lead.writeStatus, decidedNow };
}

export const unmappedError = (input: ProcessCrmLeadInput, agent: string) => `Agent ${agent} has no ${CRM_NAMES[input.crm]} owner in agent_map: the owner was not written back`;

/** Routes the lead's client by the connector's policy through the routing use case, once per record. */
async function routeLead(deps: LeadDeps, scope: Scope, clientId: string, policy: string, input: ProcessCrmLeadInput) {
  try {
    const answer = await routeClientRequest(deps, scope, clientId, { policy, notes: `New lead from ${CRM_NAMES[input.crm]}` }, leadRoutingKey(input.crm, input.recordId));
    // Already held by a member of the policy's team: that holder is the lead's owner.
    return answer.status === 'queued' ? { status: 'queued' as const, agent: null } : { status: 'assigned' as const, agent: answer.body.agent };
  } catch (error) {
    if (error instanceof Conflict && error.detail === NO_AGENT_AVAILABLE) return { status: 'rejected' as const, agent: null };
    throw error;
  }
}

/**
 * A lead waiting in its policy's queue: whether the queue has assigned it since. Assigned: the decision
 * becomes that agent's, its owner to be written back (`pending`, or `unmapped`, reported). Taken out of
 * the queue: `canceled`, nothing written. Answers the lead's write status.
 */
export async function awaitLeadRouting(deps: LeadDeps, input: ProcessCrmLeadInput): Promise<string> {
  const lead = await findLead(deps.prisma, keyOf(input));
  if (!lead) throw new NotFound('The lead was not decided');
  if (lead.writeStatus !== 'queued') return lead.writeStatus;
  const scope = { business: lead.business, ownerId: lead.ownerId };
  const decision = await findDecisionByKey(deps.prisma, scope, leadRoutingKey(input.crm, input.recordId));
  if (decision?.status === 'queued') return 'queued';
  if ((decision?.status !== 'assigned' && decision?.status !== 'already_assigned') || !decision.agent) {
    await markLeadUnrouted(deps.prisma, keyOf(input), 'The client was taken out of the routing queue: no owner written back');
    return 'canceled';
  }
  const connector = await findBusinessConnector(deps.prisma, input.business, input.crm);
  const agent = decision.agent.id;
  const crmOwnerId = crmOwnerOf(connector?.agentMap, agent);
  const client = await findClient(deps.prisma, scope, lead.clientId);
  await withEvents(deps.prisma, async (tx, record) => {
    if (!(await markLeadRouted(tx, keyOf(input), agent, crmOwnerId)) || crmOwnerId) return;
    await record({ scope, clientPk: client?.pk ?? null, clientId: lead.clientId, type: 'crm.owner_sync_failed', data: ownerSyncFailedData(lead, agent, null, unmappedError(input, agent)) });
  });
  return (await findLead(deps.prisma, keyOf(input)))!.writeStatus;
}

/** Assigns the decided agents through the assign-agents use case, once; the request's key is the record's, so a repeat joins it. */
export async function assignLead(deps: LeadDeps, input: ProcessCrmLeadInput): Promise<void> {
  const lead = await findLead(deps.prisma, keyOf(input));
  if (!lead || lead.assignedAt || lead.agents.length === 0) return;
  await assignAgents(
    { prisma: deps.prisma, temporal: deps.temporal, taskQueue: deps.taskQueue, assignTimeoutMs: deps.assignTimeoutMs ?? 60_000 },
    { business: lead.business, ownerId: lead.ownerId },
    lead.clientId,
    { agents: lead.agents.map((agentId) => ({ agentId, dtUntil: DEFAULT_DT_UNTIL })), notes: `New lead from ${CRM_NAMES[input.crm]}` },
    undefined,
    `crm-${input.crm}-${input.recordId}`,
  );
  await markLeadAssigned(deps.prisma, keyOf(input));
}

/**
 * Writes the decided owner into the CRM unless it is already written; a CrmRequestFailed says whether to
 * try again. A `retried` write (an earlier attempt may have reached the CRM before its worker died, or its
 * answer was lost) reads the record first and writes nothing when the CRM already has that owner, so the
 * CRM sees one write.
 */
export async function writeLeadOwner(deps: LeadDeps, input: ProcessCrmLeadInput, options: { retried?: boolean } = {}): Promise<void> {
  const lead = await findLead(deps.prisma, keyOf(input));
  if (!lead || lead.writeStatus !== 'pending' || !lead.crmOwnerId) return;
  const { api } = await connectorOf(deps, input);
  const already = options.retried && (await api.fetchRecord(input.recordId))?.ownerId === lead.crmOwnerId;
  if (!already) await api.writeOwner(input.recordId, lead.crmOwnerId);
  await markOwnerWritten(deps.prisma, keyOf(input));
}

/** The CRM refused the owner for good (or kept refusing): on the decision, and as `crm.owner_sync_failed`. */
export async function failLeadOwnerWrite(deps: LeadDeps, input: ProcessCrmLeadInput, error: string): Promise<void> {
  const lead = await findLead(deps.prisma, keyOf(input));
  if (!lead) return;
  const scope = { business: lead.business, ownerId: lead.ownerId };
  const client = await findClient(deps.prisma, scope, lead.clientId);
  await withEvents(deps.prisma, async (tx, record) => {
    if (!(await markOwnerWriteFailed(tx, keyOf(input), error))) return;
    await record({ scope, clientPk: client?.pk ?? null, clientId: lead.clientId, type: 'crm.owner_sync_failed', data: ownerSyncFailedData(lead, lead.agents[0] ?? null, lead.crmOwnerId, error) });
  });
}

/**
 * A change of owner in the CRM. The owner we wrote (or are about to write) is our own echo; another
 * one is a person's change: `crm.owner_conflict` names both, and when the connector says
 * `follow_crm_owner` and `agent_map` knows the new owner, the assignment moves to that agent.
 * Answers the outcome stamped on the event.
 */
export async function handleOwnerChange(deps: LeadDeps, input: ProcessCrmLeadInput, eventId: string): Promise<string> {
  const event = await findInboundEvent(deps.prisma, eventId);
  const lead = await findLead(deps.prisma, keyOf(input));
  if (!event || !lead) return 'not_ours';
  if (event.ownerValue === lead.crmOwnerId) return 'echo';
  const connector = await findBusinessConnector(deps.prisma, input.business, input.crm);
  const theirAgent = event.ownerValue ? agentOfCrmOwner(connector?.agentMap, event.ownerValue) : null;
  const follow = Boolean(connector?.followCrmOwner && theirAgent && event.ownerValue);
  const scope = { business: lead.business, ownerId: lead.ownerId };
  const client = await findClient(deps.prisma, scope, lead.clientId);
  await withEvents(deps.prisma, async (tx, record) => {
    // One conflict event per inbound event, whichever attempt of this step gets here first.
    const stamped = await tx.crmInboundEvent.updateMany({ where: { id: eventId, outcome: null }, data: { outcome: follow ? 'followed' : 'conflict' } });
    if (stamped.count === 0) return;
    await record({
      scope,
      clientPk: client?.pk ?? null,
      clientId: lead.clientId,
      type: 'crm.owner_conflict',
      data: ownerConflictData(lead, { agent: lead.agents[0] ?? null, crmOwnerId: lead.crmOwnerId }, { agent: theirAgent, crmOwnerId: event.ownerValue }, follow),
    });
  });
  if (follow && client && theirAgent) {
    await assignAgents(
      { prisma: deps.prisma, temporal: deps.temporal, taskQueue: deps.taskQueue, assignTimeoutMs: deps.assignTimeoutMs ?? 60_000 },
      scope,
      lead.clientId,
      { agents: [{ agentId: theirAgent, dtUntil: DEFAULT_DT_UNTIL }], notes: `Owner changed in ${CRM_NAMES[input.crm]}` },
      undefined,
      `crm-${input.crm}-${input.recordId}-${eventId}`,
    );
    for (const agent of lead.agents.filter((a) => a !== theirAgent)) {
      await unassignAgent({ prisma: deps.prisma, temporal: deps.temporal, taskQueue: deps.taskQueue }, scope, client, agent).catch((error) => {
        if (!(error instanceof NotFound)) throw error;
      });
    }
    await followCrmOwner(deps.prisma, keyOf(input), event.ownerValue!, [theirAgent]);
  }
  return follow ? 'followed' : 'conflict';
}
