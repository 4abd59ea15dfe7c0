import { AsyncLocalStorage } from 'node:async_hooks';

/** The HTTP request a piece of work was caused by, so every log line of it can name the request. */
export interface RequestContext {
  requestId: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();
