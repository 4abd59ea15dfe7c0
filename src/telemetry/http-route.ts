import type { Request } from 'express';

/** The route's template, not the path: `/ext/v2/:business/messages/:messageId`, so ids never become labels or span names. */
export function routeOf(req: Request): string {
  const route = (req.route as { path?: string } | undefined)?.path;
  if (!route) return 'unmatched';
  // An error handled after the route leaves req.baseUrl reset; the original URL still tells the mount.
  return req.originalUrl.startsWith('/ext/v2/') ? `/ext/v2/:business${route}` : route;
}

/** A Salesforce inbound URL's last segment is the connector's secret: whoever reads it could post as Salesforce. */
const INBOUND_SECRET = /(\/outbound-message\/)[^/]+/gi;
export const REDACTED = '[redacted]';

/** `path` without an inbound URL's secret, whether a route matched it or not. */
export const withoutSecrets = (path: string): string => path.replace(INBOUND_SECRET, `$1${REDACTED}`);

/** A request's path as it may be written down: without its query string and without an inbound URL's secret. */
export const loggablePath = (url: string | undefined): string => withoutSecrets((url ?? '').split('?')[0]);
