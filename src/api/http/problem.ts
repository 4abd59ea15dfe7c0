import { STATUS_CODES } from 'node:http';

/**
 * An error that becomes an RFC 9457 problem-details response. It is an answer, not a fault: no stack
 * trace is captured (a flood of 401s, 429s or 503s would otherwise pay for one each).
 */
export class HttpProblem extends Error {
  readonly status: number;
  readonly detail: string;
  readonly type: string;
  readonly headers: Record<string, string>;
  /** What to do about it, as the problem's `hint` member, when `detail` is a text the contract fixes. */
  hint?: string;
  constructor(status: number, detail: string, type = `/problems/${slug(STATUS_CODES[status] ?? 'error')}`, headers: Record<string, string> = {}) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(detail);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.status = status;
    this.detail = detail;
    this.type = type;
    this.headers = headers;
  }
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

export const badRequest = (detail: string) => new HttpProblem(400, detail, '/problems/invalid-request');
export const notFound = (detail: string) => new HttpProblem(404, detail, '/problems/not-found');
export const unauthorized = (detail: string) =>
  new HttpProblem(401, detail, '/problems/unauthorized', { 'WWW-Authenticate': 'Bearer' });
export const forbidden = (detail: string) => new HttpProblem(403, detail, '/problems/forbidden');
export const conflict = (detail: string) => new HttpProblem(409, detail, '/problems/conflict');
