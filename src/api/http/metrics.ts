import { createServer } from 'node:http';
import type { RequestHandler } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { routeOf } from '../../telemetry/http-route';

export interface HttpMetrics {
  registry: Registry;
  middleware: RequestHandler;
}

/** Request counts and latency by route and status, and the process's own metrics (served apart from the API by `serveMetrics`). */
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
  return { registry, middleware };
}

/**
 * `GET /metrics` on a port of its own, loopback unless told otherwise (API_METRICS_HOST/PORT): the
 * counts span every tenant, and the API's public port cannot be fenced off from the scraper's by network alone.
 */
export function serveMetrics(registry: Registry, port: number, host = '127.0.0.1'): Promise<{ port: number; stop(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
    try {
      res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' }).end(await registry.metrics());
    } catch (error) {
      res.writeHead(503, { 'Content-Type': 'text/plain' }).end(`metrics unavailable: ${(error as Error).message}\n`);
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : port,
        stop: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
