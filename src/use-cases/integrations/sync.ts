import type { z } from 'zod';
import type { CrmEndpoints } from '../../config/index';
import type { OutboundNetwork } from '../../net/outbound';
import { CrmRequestFailed, crmApiOf } from '../../crm';
import { findOwnConnector, listConnectors } from '../../db/crm-connectors';
import { recordsWithCreation, recordsWithStaleEvents } from '../../db/crm-inbound-events';
import type { Scope } from '../../db/scope';
import type { Crm } from '../../domain';
import type { CrmConnector } from '../../generated/prisma/client';
import { signalCrmLeadWorkflow } from '../../starters/process-crm-lead-workflow';
import { NotFound, Unavailable } from '../errors';
import { openCrmSecrets } from './connectors';
import type { CrmSyncOutcome } from './contract';
import { erasedRecordKey } from './erased-leads';
import { erasedDigests } from '../../db/crm-erased-records';
import { recordAndHandOver, type InboundDeps } from './inbound';

/*
 * The catch-up sweep: the records the CRM created in the last 24 hours, listed through its SDK; each one
 * no creation was recorded for (a webhook lost, banned or given up) is recorded as one (`sweep:<id>`)
 * and handed to its lead workflow like a webhook's. Events recorded but never handed over (Temporal
 * down right after the answer) are handed over again. A record is routed once, however it arrives.
 */

export const SWEEP_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Records listed per connector and sweep; more are left for the next sweep (the oldest come first). */
export const SWEEP_MAX_RECORDS = 1000;
/** An event not handled after this is handed over again. */
export const STALE_EVENT_GRACE_MS = 5 * 60 * 1000;

export type SyncDeps = InboundDeps & { crmEndpoints?: CrmEndpoints; crmNetwork?: OutboundNetwork };

/** What a sweep did, as `POST /integrations/{crm}/sync` answers it. */
export type SyncOutcome = z.output<typeof CrmSyncOutcome>;

async function syncConnector(deps: SyncDeps, connector: CrmConnector, now: Date): Promise<SyncOutcome> {
  const crm = connector.crm as Crm;
  const api = crmApiOf(crm, connector.settings as Record<string, string>, openCrmSecrets(deps.secrets, connector.secrets), deps.crmEndpoints, deps.crmNetwork);
  const listed = await api.listCreatedSince(new Date(now.getTime() - SWEEP_WINDOW_MS), SWEEP_MAX_RECORDS);
  const known = await recordsWithCreation(deps.prisma, connector.business, crm, listed);
  const erased = await erasedAmong(deps, connector.business, crm, listed.filter((id) => !known.has(id)));
  const missed = listed.filter((id) => !known.has(id) && !erased.has(id));
  const { recorded } = await recordAndHandOver(
    deps,
    connector.business,
    crm,
    missed.map((recordId) => ({ eventKey: `sweep:${recordId}`, recordId, kind: 'created', ownerValue: null, occurredAt: null })),
  );
  const stale = await recordsWithStaleEvents(deps.prisma, STALE_EVENT_GRACE_MS, SWEEP_MAX_RECORDS, now, { business: connector.business, crm });
  for (const { recordId } of stale) await signalCrmLeadWorkflow(deps.temporal, deps.taskQueue, { business: connector.business, crm, recordId });
  return { listed: listed.length, recorded, resumed: stale.length };
}

/** Records a resumption hands over; more are left to the hourly sweep. */
const RESUMED_AT_ONCE = 10_000;

/**
 * Hands every record with an event not yet handled to its lead's workflow now (started if none runs),
 * whatever its age: after the upgrade of runs ended the leads' runs (src/worker/run-upgrade.ts). Answers how many.
 */
export async function resumeUnhandledLeads(deps: Pick<SyncDeps, 'prisma' | 'temporal' | 'taskQueue'>, now = new Date()): Promise<number> {
  const records = await recordsWithStaleEvents(deps.prisma, 0, RESUMED_AT_ONCE, now);
  for (const { business, crm, recordId } of records) await signalCrmLeadWorkflow(deps.temporal, deps.taskQueue, { business, crm: crm as Crm, recordId });
  return records.length;
}

/** Of these records, the ones whose client was erased: a sweep does not bring them back. */
async function erasedAmong(deps: SyncDeps, business: string, crm: Crm, recordIds: string[]): Promise<Set<string>> {
  const keys = recordIds.map((recordId) => ({ recordId, digests: erasedRecordKey(deps.secrets, { business, crm, recordId }).digests }));
  const erased = await erasedDigests(deps.prisma, business, crm, keys.flatMap((k) => k.digests));
  return new Set(keys.filter((k) => k.digests.some((d) => erased.has(d))).map((k) => k.recordId));
}

/** POST /integrations/{crm}/sync: the caller's connector swept now. A CRM that does not answer is a 503. */
export async function syncCrmConnector(deps: SyncDeps, scope: Scope, crm: Crm, now = new Date()): Promise<SyncOutcome> {
  const connector = await findOwnConnector(deps.prisma, scope, crm);
  if (!connector) throw new NotFound(`No ${crm} connector`);
  try {
    return await syncConnector(deps, connector, now);
  } catch (error) {
    if (error instanceof CrmRequestFailed) throw new Unavailable(`${error.message}: nothing was swept, try again later`, 60);
    throw error;
  }
}

/** How many connectors the hourly sweep runs at once, and how long one may take before it is given up. */
export const SWEEP_CONCURRENCY = 4;
export const SWEEP_CONNECTOR_TIMEOUT_MS = 5 * 60 * 1000;

export interface SweepOptions {
  concurrency?: number;
  timeoutMs?: number;
  now?: Date;
}

class SweepTimedOut extends Error {}

/** The connector's sweep, or its timeout: a CRM that stalls is given up (its requests left to end by themselves). */
function sweepWithin(deps: SyncDeps, connector: CrmConnector, timeoutMs: number, now: Date): Promise<SyncOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SweepTimedOut(`The ${connector.crm} sweep took longer than ${timeoutMs} ms: given up until the next sweep`)), timeoutMs);
  });
  return Promise.race([syncConnector(deps, connector, now), timedOut]).finally(() => clearTimeout(timer));
}

/**
 * Sweeps these connectors, a few at once, each within its own timeout, so one slow or stalled CRM
 * delays nobody else's catch-up; one that fails or times out is reported and the others go on.
 * Answers how many were swept.
 */
export async function sweepConnectors(deps: SyncDeps, connectors: CrmConnector[], onError: (connector: { business: string; crm: string }, error: unknown) => void, options: SweepOptions = {}): Promise<number> {
  const { concurrency = SWEEP_CONCURRENCY, timeoutMs = SWEEP_CONNECTOR_TIMEOUT_MS, now = new Date() } = options;
  let next = 0;
  let swept = 0;
  const lane = async () => {
    while (next < connectors.length) {
      const connector = connectors[next++];
      try {
        await sweepWithin(deps, connector, timeoutMs, now);
        swept++;
      } catch (error) {
        onError({ business: connector.business, crm: connector.crm }, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, connectors.length)) }, lane));
  return swept;
}

/** The hourly sweep of every connector (see sweepConnectors). */
export async function syncAllCrmConnectors(deps: SyncDeps, onError: (connector: { business: string; crm: string }, error: unknown) => void, options: SweepOptions = {}): Promise<number> {
  return sweepConnectors(deps, await listConnectors(deps.prisma), onError, options);
}
