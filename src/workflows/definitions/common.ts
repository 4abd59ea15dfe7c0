export const DEFAULT_TASK_QUEUE = 'crm-messaging';

/**
 * Longest single durable timer a workflow starts. The server caps a timer at 100 years and never fires
 * one scheduled more than 99 years ahead, so longer waits sleep in chunks and continue-as-new between
 * them, which also keeps each run's history short.
 */
export const MAX_TIMER_CHUNK_MS = 30 * 24 * 60 * 60 * 1000;

/** Failure types raised as non-retryable ApplicationFailures; the API maps each to an HTTP status. */
export const FailureType = {
  ClientNotFound: 'ClientNotFound',
  AgentNotAuthorized: 'AgentNotAuthorized',
  MessageNotFound: 'MessageNotFound',
  MessageAlreadySent: 'MessageAlreadySent',
  ProviderRejected: 'ProviderRejected',
} as const;
export type FailureType = (typeof FailureType)[keyof typeof FailureType];
