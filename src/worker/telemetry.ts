import { createServer, type Server } from 'node:http';
import { Runtime } from '@temporalio/worker';
import { Gauge, Histogram, Registry } from 'prom-client';
import { countActiveAssignments } from '../db/assignments';
import { countMessagesByStatus } from '../db/messages';
import type { Prisma } from '../db/prisma';
import { temporalLogger } from '../logger';
import { MESSAGE_STATUSES } from '../workflows/definitions';
import { codecHandler, type CodecEndpoint } from './codec-endpoint';

/**
 * Installs the Temporal runtime for this process: its logs into the process's logger, and its own
 * metrics on a Prometheus endpoint at `sdkMetricsAddress` (which the worker's /metrics includes).
 */
export function installTemporalRuntime(sdkMetricsAddress?: string): void {
  Runtime.install({
    logger: temporalLogger('WARN'),
    ...(sdkMetricsAddress && { telemetryOptions: { metrics: { prometheus: { bindAddress: sdkMetricsAddress } } } }),
  });
}

export interface WorkerMetrics {
  registry: Registry;
  observeLateness(seconds: number): void;
}

/** The worker's own metrics: messages by status, active assignments, and delivery lateness. */
export function workerMetrics(prisma: Prisma): WorkerMetrics {
  const registry = new Registry();
  new Gauge({
    name: 'crm_messages',
    help: 'Messages by status',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const counts = await countMessagesByStatus(prisma);
      for (const status of MESSAGE_STATUSES) this.set({ status }, counts.get(status) ?? 0);
    },
  });
  new Gauge({
    name: 'crm_active_assignments',
    help: 'Assignments currently active',
    registers: [registry],
    async collect() {
      this.set(await countActiveAssignments(prisma));
    },
  });
  const lateness = new Histogram({
    name: 'crm_message_delivery_lateness_seconds',
    help: 'Time from a message being due (send_at) to it being sent',
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
    registers: [registry],
  });
  return { registry, observeLateness: (seconds) => lateness.observe(Math.max(seconds, 0)) };
}

export interface WorkerHttp {
  port: number;
  stop(): Promise<void>;
}

/** `GET /healthz` (200 while the worker runs) and `GET /metrics` (ours, then the SDK's) for the worker process. */
export function serveWorkerHttp(options: {
  port: number;
  /** Loopback by default: the codec decrypts for whoever holds its credential, and the metrics count every tenant's rows. */
  host?: string;
  metrics: Registry;
  sdkMetricsUrl?: string;
  running(): boolean;
  codec?: CodecEndpoint;
}): Promise<WorkerHttp> {
  const serveCodec = options.codec && codecHandler(options.codec);
  const server: Server = createServer(async (req, res) => {
    if (serveCodec && (await serveCodec(req, res))) return;
    if (req.method === 'GET' && req.url === '/healthz') {
      const running = options.running();
      res.writeHead(running ? 200 : 503, { 'Content-Type': 'application/json' }).end(JSON.stringify({ status: running ? 'ok' : 'not running' }));
      return;
    }
    if (req.method === 'GET' && req.url === '/metrics') {
      try {
        const sdk = options.sdkMetricsUrl ? await fetch(options.sdkMetricsUrl, { signal: AbortSignal.timeout(2000) }).then((r) => r.text()) : '';
        res.writeHead(200, { 'Content-Type': options.metrics.contentType }).end(`${await options.metrics.metrics()}\n${sdk}`);
      } catch (error) {
        res.writeHead(503, { 'Content-Type': 'text/plain' }).end(`metrics unavailable: ${(error as Error).message}\n`);
      }
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      const address = server.address();
      resolve({ port: typeof address === 'object' && address ? address.port : options.port, stop: () => new Promise((done) => server.close(() => done())) });
    });
  });
}
