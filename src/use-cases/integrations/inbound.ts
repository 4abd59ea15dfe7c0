import type { z } from 'zod';
import type { Client as TemporalClient } from '@temporalio/client';
import { findBusinessConnector } from '../../db/crm-connectors';
import { recordInboundEvents, type NewInboundEvent } from '../../db/crm-inbound-events';
import type { Prisma } from '../../db/prisma';
import type { Crm } from '../../domain';
import type { SecretBox } from '../../secrets/secret-box';
import type { Admission } from '../../starters/admission';
import { signalCrmLeadWorkflow } from '../../starters/process-crm-lead-workflow';
import { Invalid, Unauthenticated } from '../errors';
import { openCrmSecrets } from './connectors';
import type { CrmInboundAnswer } from './contract';
import type { InboundKey, InboundKeyCache } from './inbound-keys';

/*
 * What every CRM's inbound route does once its request checks out: record the events durably (once per
 * vendor event id), answer, and only then hand each record to its lead workflow. A hand-over that fails
 * is left to the sweep, which finds events unhandled after a grace period.
 */

export interface InboundDeps {
  prisma: Prisma;
  secrets: SecretBox;
  temporal: TemporalClient;
  taskQueue: string;
  /** Where a failed hand-over is reported (it is retried by the sweep). */
  onHandOverError?: (error: unknown) => void;
  /**
   * Places for hand-overs in flight, shared fairly between businesses. A burst of webhooks is answered
   * at once and handed over a few at a time, rather than a thousand signal-with-starts in flight
   * competing with the answers (unset: the sweep's own, already bounded).
   */
  handOvers?: Admission;
  /** The connectors' verification keys kept in memory (unset: read on every request). */
  inboundKeys?: InboundKeyCache;
}

export const invalidSignature = () => new Unauthenticated('Invalid signature');

/**
 * The business's connector to `crm` with its credentials opened (from the in-memory cache when the
 * deps have one), or the 401 of a bad signature (nothing tells a caller whether it exists).
 */
export async function connectorForInbound(deps: InboundDeps, business: string, crm: Crm): Promise<InboundKey> {
  const load = async (): Promise<InboundKey | null> => {
    const connector = await findBusinessConnector(deps.prisma, business, crm);
    return connector && { connector, secrets: openCrmSecrets(deps.secrets, connector.secrets) };
  };
  const key = deps.inboundKeys ? await deps.inboundKeys.get(business, crm, load) : await load();
  if (!key) throw invalidSignature();
  return key;
}

/** A delivery recorded, as the inbound routes answer it. */
export type Recorded = z.output<typeof CrmInboundAnswer>;

/** Records the events, then hands the records with new events to their workflows without waiting for Temporal. */
export async function recordAndHandOver(deps: InboundDeps, business: string, crm: Crm, events: NewInboundEvent[]): Promise<Recorded> {
  const { inserted, recordIds } = await recordInboundEvents(deps.prisma, business, crm, events);
  for (const recordId of recordIds) {
    const handOver = () => signalCrmLeadWorkflow(deps.temporal, deps.taskQueue, { business, crm, recordId });
    (deps.handOvers ? deps.handOvers.run(business, handOver) : handOver()).catch((error) => deps.onHandOverError?.(error));
  }
  return { received: events.length, recorded: inserted };
}

/** A CRM's JSON body, read once its sender is verified; unreadable JSON is a 400 (the CRM retries, nothing is half recorded). */
export function jsonBodyOf(rawBody: Buffer): unknown {
  try {
    return JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new Invalid('Malformed JSON body', 'malformed-json');
  }
}
