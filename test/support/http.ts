import { validateAgainstDocument } from './openapi';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  /**
   * Whether the answer must agree with the OpenAPI document (default: yes). Only a test that calls a
   * route or method the API does not have on purpose turns it off.
   */
  validate?: boolean;
}

/** One HTTP request as a client of the API sends it: a bearer token, a JSON body, the answer parsed when it is JSON. */
export async function request<T = any>(method: string, url: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Uint8Array | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

/**
 * Requests to `/ext/v2/{business}{path}`, or to `path` itself on the same origin when it starts with
 * `//`; every answer is checked against the OpenAPI document, so a route and its description cannot drift.
 */
export function apiClient(origin: string, business: string) {
  return async <T = any>(method: string, path: string, options: RequestOptions = {}) => {
    const absolutePath = path.startsWith('//') ? path.slice(1) : `/ext/v2/${business}${path}`;
    const res = await request<T>(method, `${origin}${absolutePath}`, options);
    if (options.validate !== false) {
      validateAgainstDocument({ method, path: absolutePath, status: res.status, contentType: res.headers.get('content-type'), body: res.body, headers: res.headers });
    }
    return res;
  };
}
