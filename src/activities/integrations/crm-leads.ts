import { Context, heartbeat, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Client as TemporalClient } from '@temporalio/client';
import type { CrmEndpoints } from '../../config/index';
import type { OutboundNetwork } from '../../net/outbound';
import { CrmRequestFailed } from '../../crm';
import { CrmFailureType, type ProcessCrmLeadInput } from '../../domain';
import type { SecretBox } from '../../secrets/secret-box';
import type { DatabaseDeps } from '../../use-cases/database';
import { UseCaseError } from '../../use-cases/errors';
import { followLeadHolder } from '../../use-cases/integrations/lead-holder';
import { syncAllCrmConnectors } from '../../use-cases/integrations/sync';
import { assignLead, awaitLeadRouting, decideLead, failLeadOwnerWrite, finishCrmEvent, handleOwnerChange, nextCrmEvent, syncLeadClient, writeLeadOwner } from '../../use-cases/integrations/leads';

export interface CrmLeadActivityDeps extends DatabaseDeps {
  temporal: TemporalClient;
  taskQueue: string;
  secrets: SecretBox;
  /** The CRMs' REST bases when not the vendors' (tests, the fakes of npm start). */
  crmEndpoints?: CrmEndpoints;
  /** What the CRMs' SDKs connect through (the public-address guard in production). */
  crmNetwork?: OutboundNetwork;
}

const HEARTBEAT_EVERY_MS = 3_000;

/**
 * The CRM's refusals as Temporal failures: a final one ends the activity at once; a 429 retries after
 * its Retry-After instead of the backoff; a refused step of ours (the connector gone, an agent deleted)
 * ends it too. The messages are our words and a status code, never the CRM's body.
 */
async function asTemporalFailure<T>(step: () => Promise<T>): Promise<T> {
  // Beats while the step runs, so the server notices a worker that died mid-call within the heartbeat
  // timeout (the lead workflow's CRM steps) instead of the whole start-to-close timeout.
  // A local activity has no heartbeat: the workflow task that runs it is the one watched.
  const beating = Context.current().info.isLocal ? undefined : setInterval(() => heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await step();
  } catch (error) {
    if (error instanceof CrmRequestFailed) {
      if (error.final) throw ApplicationFailure.create({ type: CrmFailureType.CrmRefused, message: error.message, nonRetryable: true });
      throw ApplicationFailure.create({ type: 'CrmBusy', message: error.message, ...(error.retryAfterMs !== undefined && { nextRetryDelay: Math.max(error.retryAfterMs, 100) }) });
    }
    if (error instanceof UseCaseError) throw ApplicationFailure.create({ type: CrmFailureType.ConnectorGone, message: error.detail, nonRetryable: true });
    throw error;
  } finally {
    clearInterval(beating);
  }
}

export function createCrmLeadActivities(deps: CrmLeadActivityDeps) {
  return {
    nextCrmEvent: (input: ProcessCrmLeadInput) => nextCrmEvent(deps, input),
    finishCrmEvent: (eventId: string, outcome: string) => finishCrmEvent(deps, eventId, outcome),
    syncLeadClient: (input: ProcessCrmLeadInput) => asTemporalFailure(() => syncLeadClient(deps, input)),
    decideLead: (input: ProcessCrmLeadInput) => asTemporalFailure(async () => (await decideLead(deps, input)).writeStatus),
    awaitLeadRouting: (input: ProcessCrmLeadInput) => asTemporalFailure(() => awaitLeadRouting(deps, input)),
    assignLead: (input: ProcessCrmLeadInput) => asTemporalFailure(() => assignLead(deps, input)),
    followLeadHolder: (input: ProcessCrmLeadInput) => followLeadHolder(deps, input),
    writeLeadOwner: (input: ProcessCrmLeadInput) => asTemporalFailure(() => writeLeadOwner(deps, input, { retried: Context.current().info.attempt > 1 })),
    failLeadOwnerWrite: (input: ProcessCrmLeadInput, error: string) => failLeadOwnerWrite(deps, input, error),
    /** The hourly catch-up sweep of every connector (housekeeping); a CRM that fails or stalls is logged, the others go on. */
    syncCrmConnectors: async () => {
      // The housekeeping activities' heartbeat timeout is 2 minutes; connectors run concurrently, so beat on a clock.
      const beating = setInterval(() => heartbeat(), 30_000);
      heartbeat();
      try {
        return await syncAllCrmConnectors(deps, (connector, error) =>
          log.warn('CRM catch-up sweep failed for a connector', { business: connector.business, crm: connector.crm, error: error instanceof Error ? error.message : String(error) }),
        );
      } finally {
        clearInterval(beating);
      }
    },
    handleOwnerChange: (input: ProcessCrmLeadInput, eventId: string) => asTemporalFailure(() => handleOwnerChange(deps, input, eventId)),
  };
}
