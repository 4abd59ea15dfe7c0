import { Router, type Request, type RequestHandler } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The route's template, not the path: `/ext/v2/:business/messages/:messageId`, so ids never become labels. */
function routeOf(req: Request): string {
  const route = (req.route as { path?: string } | undefined)?.path;
  if (!route) return 'unmatched';
  // An error handled after the route leaves req.baseUrl reset; the original URL still tells the mount.
  return req.originalUrl.startsWith('/ext/v2/') ? `/ext/v2/:business${route}` : route;
}

export interface HttpMetrics {
  registry: Registry;
  middleware: RequestHandler;
  router: Router;
}

/** Request counts and latency by route and status, and the process's own metrics, at `GET /metrics`. */
export function httpMetrics(): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
    registers: [registry],
  });
  const middleware: RequestHandler = (req, res, next) => {
    const end = duration.startTimer();
    res.on('finish', () => {
      const labels = { method: req.method, route: routeOf(req), status: String(res.statusCode) };
      requests.inc(labels);
      end(labels);
    });
    next();
  };
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });
  return { registry, middleware, router };
}
