import { createServer, type Server } from 'node:http';
import { Runtime } from '@temporalio/worker';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { countActiveAssignments } from '../db/assignments';
import { countMessagesByStatus } from '../db/messages';
import { pendingDeliveryBacklog } from '../db/webhook-deliveries';
import type { Prisma } from '../db/prisma';
import { temporalLogger } from '../logger';
import { MESSAGE_STATUSES } from '../domain';
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
  observeReconcilerRestart(kind: 'assignment' | 'message' | 'rotation'): void;
}

/** The worker's own metrics: messages by status, active assignments, delivery lateness, the webhook backlog and the reconciler's restarts. */
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
  // One scrape collects both backlog gauges at once: they share the one aggregate query in flight.
  let backlogRead: ReturnType<typeof pendingDeliveryBacklog> | undefined;
  const backlog = () => (backlogRead ??= pendingDeliveryBacklog(prisma).finally(() => (backlogRead = undefined)));
  new Gauge({
    name: 'crm_webhook_deliveries_pending',
    help: 'Webhook deliveries not yet delivered nor given up (the delivery backlog)',
    registers: [registry],
    async collect() {
      this.set((await backlog()).pending);
    },
  });
  new Gauge({
    name: 'crm_webhook_oldest_pending_delivery_age_seconds',
    help: 'Age of the oldest webhook delivery still pending; 0 when none is',
    registers: [registry],
    async collect() {
      const { oldestCreatedAt } = await backlog();
      this.set(oldestCreatedAt ? Math.max((Date.now() - oldestCreatedAt.getTime()) / 1000, 0) : 0);
    },
  });
  const restarts = new Counter({
    name: 'crm_reconciler_restarts_total',
    help: 'Workflows the reconciler started again for a row left without one (an operator terminated it), by kind, in this process',
    labelNames: ['kind'],
    registers: [registry],
  });
  for (const kind of ['assignment', 'message', 'rotation']) restarts.inc({ kind }, 0);
  return {
    registry,
    observeLateness: (seconds) => lateness.observe(Math.max(seconds, 0)),
    observeReconcilerRestart: (kind) => restarts.inc({ kind }),
  };
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
