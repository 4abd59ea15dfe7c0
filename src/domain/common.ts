export const DEFAULT_TASK_QUEUE = 'crm-messaging';

/** The (business, owner) pair that every resource belongs to. */
export interface Scope {
  business: string;
  ownerId: string;
}

/** The HTTP request that started a run: in its memo (visible in the UI) and in the headers of its activities. */
export const REQUEST_ID_MEMO = 'requestId';
export const REQUEST_ID_HEADER = 'request-id';

/**
 * Longest single durable timer a workflow starts. The server caps a timer at 100 years and never fires
 * one scheduled more than 99 years ahead, so longer waits sleep in chunks and continue-as-new between
 * them, which also keeps each run's history short.
 */
export const MAX_TIMER_CHUNK_MS = 30 * 24 * 60 * 60 * 1000;

/** Business failures a request's workflow reports to its HTTP caller; the API maps each to a status. */
export const RequestFailureType = {
  ClientNotFound: 'ClientNotFound',
  AgentNotAuthorized: 'AgentNotAuthorized',
  /** The database refused a value (a NUL character, say) that got past the API's checks. */
  InvalidData: 'InvalidData',
} as const;
export type RequestFailureType = (typeof RequestFailureType)[keyof typeof RequestFailureType];

/** Failures that end an activity without retry but stay inside Temporal. */
export const ActivityFailureType = {
  MessageNotFound: 'MessageNotFound',
  MessageAlreadySent: 'MessageAlreadySent',
  ProviderRejected: 'ProviderRejected',
} as const;
export type ActivityFailureType = (typeof ActivityFailureType)[keyof typeof ActivityFailureType];
