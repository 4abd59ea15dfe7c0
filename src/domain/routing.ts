import { defineQuery, defineSignal } from '@temporalio/workflow';
import { isWithinWorkingHours, nextShiftStart, type WorkingHours } from './working-hours';

/*
 * Lead routing's vocabulary and its pure rules: who is eligible and why not, and which eligible member
 * each strategy picks. The rows (src/db/routing-*.ts) feed these functions inside the transaction that
 * holds the policy's lock, so a pick and the load it counts are one consistent view.
 */

export const PRESENCES = ['available', 'away'] as const;
export type Presence = (typeof PRESENCES)[number];

export const ROUTING_STRATEGIES = ['round_robin', 'weighted', 'least_loaded'] as const;
export type RoutingStrategy = (typeof ROUTING_STRATEGIES)[number];

export const WHEN_NONE_ELIGIBLE = ['queue', 'reject'] as const;
export type WhenNoneEligible = (typeof WHEN_NONE_ELIGIBLE)[number];

/** `holds_client`: already holds the client, by another assignment, which routing never changes (a reassignment picks someone else). */
export const INELIGIBLE_REASONS = ['away', 'absent', 'outside_working_hours', 'at_capacity', 'excluded_previous_owner', 'not_a_member', 'holds_client'] as const;
export type IneligibleReason = (typeof INELIGIBLE_REASONS)[number];

/**
 * `queued` waits in its policy's queue; `canceled` was taken out of it; `rejected` found nobody under a
 * `reject` policy; `already_assigned` found the client held by an eligible member already (by hand, or by
 * another policy), whose assignment stays as it is.
 */
export const DECISION_STATUSES = ['assigned', 'queued', 'rejected', 'canceled', 'already_assigned'] as const;
export type DecisionStatus = (typeof DECISION_STATUSES)[number];

/** A policy as stored (one version of it). */
export interface PolicySettings {
  team: string;
  strategy: RoutingStrategy;
  /** Per agent, unless the agent has its own; null: no limit but the agent's. */
  capacity: number | null;
  working_hours: boolean;
  sticky: boolean;
  /** ISO 8601 duration of a routed assignment; null: the seed's default dt_until. */
  assignment_duration: string | null;
  when_none_eligible: WhenNoneEligible;
  route_unowned_replies: boolean;
  /** ISO 8601 duration the owner has to answer (working time when `working_hours`); null: no clock. */
  first_response_within?: string | null;
  /** How many times a missed first response moves the client; null: the default, 0 when unset. */
  max_reassignments?: number | null;
  /** ISO 8601 duration a waiting conversation of a client it routed may wait for an answer before `conversation.overdue`; null: no clock. */
  next_response_within?: string | null;
}

/** One team member as routing sees it at one instant. */
export interface MemberState {
  agentId: string;
  weight: number;
  presence: Presence;
  absent: boolean;
  timezone: string | null;
  workingHours: WorkingHours | null;
  /** The agent's own capacity; null: the policy's. */
  capacity: number | null;
  load: number;
}

export interface Candidate {
  agent: string;
  eligible: boolean;
  reasons: IneligibleReason[];
  load: number;
  capacity: number | null;
}

/** Why each member can or cannot take a client now (in member order). */
export function assess(members: MemberState[], policy: Pick<PolicySettings, 'capacity' | 'working_hours'>, at: Date, excluded: ReadonlySet<string> = new Set()): Candidate[] {
  return members.map((m) => {
    const capacity = m.capacity ?? policy.capacity;
    const reasons: IneligibleReason[] = [];
    if (m.presence === 'away') reasons.push('away');
    if (m.absent) reasons.push('absent');
    if (policy.working_hours && !isWithinWorkingHours(m.workingHours, m.timezone, at)) reasons.push('outside_working_hours');
    if (capacity !== null && m.load >= capacity) reasons.push('at_capacity');
    if (excluded.has(m.agentId)) reasons.push('excluded_previous_owner');
    return { agent: m.agentId, eligible: reasons.length === 0, reasons, load: m.load, capacity };
  });
}

/** What a strategy remembers between picks: the last agent picked, and weighted's running credits. */
export interface StrategyState {
  last: string | null;
  credits: Record<string, number>;
}

export const EMPTY_STRATEGY_STATE: StrategyState = { last: null, credits: {} };

/** The first eligible member after `last` in member order (from the top when `last` is not a member). */
function nextAfter(order: string[], eligible: ReadonlySet<string>, last: string | null): string | null {
  const start = last === null ? 0 : order.indexOf(last) + 1;
  for (let i = 0; i < order.length; i++) {
    const agent = order[(start + i) % order.length];
    if (eligible.has(agent)) return agent;
  }
  return null;
}

/**
 * Picks among the eligible candidates. `round_robin`: the next after the last one picked. `weighted`:
 * smooth weighted round robin — each eligible member earns its weight per pick and the one with most
 * credit is picked and pays the eligible total; a member not eligible earns nothing, so one back from an
 * absence has no backlog to catch up in a burst. `least_loaded`: the lowest load, ties by round robin.
 */
export function pick(strategy: RoutingStrategy, members: Pick<MemberState, 'agentId' | 'weight'>[], candidates: Candidate[], state: StrategyState): { agent: string; state: StrategyState } | null {
  const order = members.map((m) => m.agentId);
  const eligibleList = candidates.filter((c) => c.eligible);
  if (eligibleList.length === 0) return null;
  let agent: string;
  let credits = state.credits;
  if (strategy === 'least_loaded') {
    const lowest = Math.min(...eligibleList.map((c) => c.load));
    agent = nextAfter(order, new Set(eligibleList.filter((c) => c.load === lowest).map((c) => c.agent)), state.last)!;
  } else if (strategy === 'weighted') {
    const weights = new Map(members.map((m) => [m.agentId, m.weight]));
    credits = {};
    let total = 0;
    let best: string | null = null;
    for (const c of eligibleList) {
      const weight = weights.get(c.agent) ?? 1;
      total += weight;
      credits[c.agent] = (state.credits[c.agent] ?? 0) + weight;
      if (best === null || credits[c.agent] > credits[best]) best = c.agent;
    }
    credits[best!] -= total;
    // Members not eligible keep what they had (never more): no credit piles up while away.
    for (const [id, credit] of Object.entries(state.credits)) if (!(id in credits) && weights.has(id)) credits[id] = Math.min(credit, 0);
    agent = best!;
  } else {
    agent = nextAfter(order, new Set(eligibleList.map((c) => c.agent)), state.last)!;
  }
  return { agent, state: { last: agent, credits } };
}

/**
 * When the queue's answer may change by the clock alone: the earliest end of an absence in progress
 * or start of a shift among the members, after `at`. Null when only an event (an unassignment, a
 * presence change) can free someone.
 */
export function nextEligibilityChange(members: (Pick<MemberState, 'timezone' | 'workingHours'> & { absenceEnds: Date | null })[], workingHours: boolean, at: Date): Date | null {
  let next: number | null = null;
  const consider = (d: Date | null) => {
    if (d && d.getTime() > at.getTime() && (next === null || d.getTime() < next)) next = d.getTime();
  };
  for (const m of members) {
    consider(m.absenceEnds);
    if (workingHours) consider(nextShiftStart(m.workingHours, m.timezone, at));
  }
  return next === null ? null : new Date(next);
}

/** Where the routing-queue workflow's activity is given its policy: ids only. */
export interface RoutingQueueInput {
  business: string;
  /** The policy row's internal key: stands for the (user, policy) pair, whose ids never enter Temporal. */
  policyKey: string;
}

/** What one drain reports to the workflow: counts and dates only. */
export interface DrainResult {
  assigned: number;
  waiting: number;
  /** When the oldest still waiting was queued. */
  oldestSince: string | null;
  /** When the clock alone may free someone (an absence's end, a shift's start). */
  nextChangeAt: string | null;
  /** The policy row is gone. */
  gone: boolean;
}

export const ROUTING_QUEUE_WORKFLOW = 'routingQueue';
export type RoutingQueueWorkflow = (input: RoutingQueueInput) => Promise<{ outcome: 'empty' | 'gone' }>;

/** Capacity may have freed (or a client joined the queue): the workflow drains at once. */
export const routingCapacityChangedSignal = defineSignal('capacityChanged');
export const routingQueueStateQuery = defineQuery<DrainResult | null>('state');

/** One per policy: the business, then the policy row's key. */
export const routingQueueWorkflowId = (input: RoutingQueueInput) => ['routing-queue', input.business, input.policyKey].join('/');

/** "3 waiting, oldest since …": the run's current details in the Temporal UI. */
export function describeQueue(result: DrainResult): string {
  if (result.gone) return 'Policy deleted';
  const oldest = result.oldestSince ? `, oldest waiting since ${result.oldestSince}` : '';
  const next = result.nextChangeAt ? `; next shift start or absence end at ${result.nextChangeAt}` : '';
  return `${result.waiting} waiting${oldest}; ${result.assigned} assigned by the last drain${next}`;
}

const ISO_DURATION = /^P(?:(\d{1,4})Y)?(?:(\d{1,5})M)?(?:(\d{1,5})W)?(?:(\d{1,6})D)?(?:T(?:(\d{1,7})H)?(?:(\d{1,9})M)?(?:(\d{1,10})S)?)?$/;

/** An ISO 8601 duration's parts (`P14D`, `PT15M`, `P1M`), or undefined when it is not one or is empty. */
export function parseIsoDuration(text: string): { months: number; days: number; ms: number } | undefined {
  const m = ISO_DURATION.exec(text);
  if (!m || /^P$|T$/.test(text)) return undefined;
  const n = (i: number) => Number(m[i] ?? 0);
  return { months: n(1) * 12 + n(2), days: n(3) * 7 + n(4), ms: ((n(5) * 60 + n(6)) * 60 + n(7)) * 1000 };
}

/** `at` plus an ISO 8601 duration: calendar months in UTC (the day kept or clamped to the month's last), then days and time. */
export function addIsoDuration(at: Date, duration: string): Date {
  const parts = parseIsoDuration(duration)!;
  const d = new Date(at.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + parts.months);
  d.setUTCDate(Math.min(day, new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate()));
  return new Date(d.getTime() + parts.days * 86_400_000 + parts.ms);
}

/** The first-response clock of one routing decision: ids only (the decision's uuid stands for the client and its owner). */
export interface FirstResponseInput {
  business: string;
  decisionId: string;
}

/** What one look at the clock found: still running until `dueAt` (null: the owner has no working time ahead), or over. */
export type FirstResponseStep =
  | { state: 'waiting'; dueAt: string | null; reassignments: number }
  | { state: 'reassigned'; reassignments: number }
  | { state: 'done'; outcome: 'answered' | 'escalated' | 'ended' };

