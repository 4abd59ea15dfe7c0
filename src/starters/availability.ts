import type { Client as TemporalClient } from '@temporalio/client';
import { ServiceError } from '@temporalio/client';

/** How long a request may wait for Temporal to accept a start: the budget of GET /readyz. */
export const START_BUDGET_MS = 2000;
/** After Temporal failed to answer, new work is refused at once for this long, then one request tries again. */
const KNOWN_DOWN_MS = 5000;

/** gRPC's DEADLINE_EXCEEDED and UNAVAILABLE: Temporal did not answer, rather than refused. */
const DEADLINE_EXCEEDED = 4;
const UNREACHABLE_CODES = new Set([DEADLINE_EXCEEDED, 14]);

export class TemporalUnavailableError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('Temporal is unavailable');
    this.name = 'TemporalUnavailableError';
  }
}

const budgets = new WeakMap<TemporalClient, number>();

/**
 * Gives the starts and checks made through `temporal` a budget other than START_BUDGET_MS. The budget is
 * the client's, as its known-down state is: nothing in a deployment sets it; a test against an
 * unreachable server does, so as not to wait out the production budget.
 */
export function setStartBudget(temporal: TemporalClient, budgetMs: number): void {
  budgets.set(temporal, budgetMs);
}

/** The start budget of `temporal`: START_BUDGET_MS unless set. */
export const startBudgetOf = (temporal: TemporalClient): number => budgets.get(temporal) ?? START_BUDGET_MS;

const grpcCode = (error: unknown) => (error instanceof ServiceError ? ((error.cause as { code?: number } | undefined)?.code ?? -1) : -1);

/** Whether the Temporal server answers at all, within the start budget. */
export async function answers(temporal: TemporalClient): Promise<boolean> {
  try {
    await temporal.connection.withDeadline(Date.now() + startBudgetOf(temporal), () => temporal.connection.workflowService.getSystemInfo({}));
    return true;
  } catch {
    return false;
  }
}

const downUntil = new WeakMap<TemporalClient, number>();

/**
 * Runs a call that hands new work to Temporal within the start budget. While Temporal is known to be
 * down the call is not made: the caller answers 503 at once instead of after the SDK's own retries.
 */
export async function startWithinBudget<T>(temporal: TemporalClient, call: () => Promise<T>, deadline = Date.now() + startBudgetOf(temporal)): Promise<T> {
  refuseWhileKnownDown(temporal);
  try {
    const result = await temporal.connection.withDeadline(Math.min(deadline, Date.now() + startBudgetOf(temporal)), call);
    downUntil.delete(temporal);
    return result;
  } catch (error) {
    // A start past its deadline on a server that still answers is this request's 503 alone: a busy moment
    // must not refuse every tenant's work for KNOWN_DOWN_MS.
    const code = grpcCode(error);
    if (UNREACHABLE_CODES.has(code) && (code !== DEADLINE_EXCEEDED || !(await answers(temporal)))) downUntil.set(temporal, Date.now() + KNOWN_DOWN_MS);
    throw error;
  }
}

/** Throws TemporalUnavailableError while a recent call found Temporal unreachable. */
export function refuseWhileKnownDown(temporal: TemporalClient): void {
  const until = downUntil.get(temporal) ?? 0;
  const left = until - Date.now();
  if (left > 0) throw new TemporalUnavailableError(Math.ceil(left / 1000));
}

/** Notes that Temporal did not answer (new work is refused at once for a while) and returns the error to throw. */
export function markUnreachable(temporal: TemporalClient): TemporalUnavailableError {
  downUntil.set(temporal, Date.now() + KNOWN_DOWN_MS);
  return new TemporalUnavailableError(KNOWN_DOWN_MS / 1000);
}
