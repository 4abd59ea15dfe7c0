import { STATUS_CODES } from 'node:http';

/** An error that becomes an RFC 9457 problem-details response. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly type = `/problems/${slug(STATUS_CODES[status] ?? 'error')}`,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

export const badRequest = (detail: string) => new HttpProblem(400, detail, '/problems/invalid-request');
export const notFound = (detail: string) => new HttpProblem(404, detail, '/problems/not-found');
export const unauthorized = (detail: string) =>
  new HttpProblem(401, detail, '/problems/unauthorized', { 'WWW-Authenticate': 'Bearer' });
export const conflict = (detail: string) => new HttpProblem(409, detail, '/problems/conflict');
