import { apiClient, type ApiResponse } from '../../support/http';
import type { NpmStartTools } from '../../support/shared-npm-start';

/** The npm start the journeys share, as each of them reaches it. */
export type PowerLossStack = NpmStartTools;

/**
 * One feature across a power loss: set up on a business of its own, its clock started right before the
 * kill -9 (so that the clock runs across it), and checked once npm start is back on the same data.
 */
export interface PowerLossJourney {
  /** What holds before the power loss (the title of its first test). */
  before: string;
  /** What holds after it (the title of its second test). */
  after: string;
  setUp(stack: PowerLossStack): Promise<void>;
  arm(): Promise<void>;
  check(): Promise<void>;
}

/** `(method, path, body)` on `business` as `user`, each answer checked against the OpenAPI document. */
export function callerOf(stack: PowerLossStack, business: string, user: string, as = stack.tokenOf(user)) {
  const api = apiClient(stack.origin, business);
  return (method: string, path: string, body?: unknown, token = as): Promise<ApiResponse> => api(method, path, { token, body });
}
