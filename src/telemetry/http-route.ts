import type { Request } from 'express';

/** The route's template, not the path: `/ext/v2/:business/messages/:messageId`, so ids never become labels or span names. */
export function routeOf(req: Request): string {
  const route = (req.route as { path?: string } | undefined)?.path;
  if (!route) return 'unmatched';
  // An error handled after the route leaves req.baseUrl reset; the original URL still tells the mount.
  return req.originalUrl.startsWith('/ext/v2/') ? `/ext/v2/:business${route}` : route;
}
