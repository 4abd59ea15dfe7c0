import type { CampaignSettings } from '../activities/messages/send-message-batch';
import type { NumberChannel } from '../domain/channels';
import { templateApprovalsOf, type TemplateApprovals } from '../use-cases/templates/approval';
import { type Carrier, createCarrier } from '../carriers';
import { deliveryOutbox } from '../starters/delivery-outbox';
import { ensureHousekeeping, removeHousekeepingSchedules, WEBHOOK_SWEEP_BACKSTOP_EVERY_MS } from '../starters/housekeeping-workflow';
import { keepHousekeeping } from '../worker/sweep-trigger';
import { logEvent, logger } from '../logger';
import type { Client as TemporalClient } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { dataConverterOf } from '../temporal-client/data-converter';
import { createProvider, type MessageProvider } from '../activities/providers';
import { createApp, type AppDeps } from '../api';
import { adminCredentialsOf, authConfigOf, crmEndpointsOf, type CrmEndpoints, codecCredentialsOf, requireBusinessNumbersOf, a2pRegistrationSettingsOf, sharedSenderChannelsOf, cursorKeyOf, webhookSettingsOf, type Config, type TemporalConnectionOptions, type WebhookSettings } from '../config/index';
import { createPrisma, type Prisma } from '../db/prisma';
import { createMessageStartConfirmations, type MessageStartConfirmations } from '../db/message-start-confirmations';
import { connectTemporalClient } from '../temporal-client/connection';
import { startWorker, type RunningWorker, type WorkerOptions } from '../worker';
import { endEarlierRuns, finishUpgradeInBackground } from '../worker/run-upgrade';
import { workerVersioningOf } from '../config/worker-versioning';
import { watchOlderVersions } from '../worker/version-wake';
import { versionName } from '../worker/versioning';
import { serveWorkerHttp, workerMetrics } from '../worker/telemetry';
import type { CodecEndpoint } from '../worker/codec-endpoint';
import { admissionLimits, createAdmissions, type Admissions } from '../starters/admission';
import { secretBoxOf } from '../secrets/configured';
import type { SecretBox } from '../secrets/secret-box';
import { resealStoredSecrets } from '../use-cases/secrets/reseal';
import { numberCarrierOf, numberCarriers, type NumberAccount, type NumberCarriers } from '../carriers/numbers';
import { numberAccounts } from '../use-cases/numbers/accounts';
import { numberRegistrations, type NumberRegistrations } from '../use-cases/numbers/registration';
import { systemLookup, type HostLookup } from '../net/public-address';
import { outboundNetworksOf, type OutboundNetwork } from '../net/outbound';

/** What every process of the service is built from: opened once from validated config. */
export interface Services {
  config: Config;
  prisma: Prisma;
  temporal: TemporalClient;
  provider: MessageProvider;
  /** Seals and opens the secrets kept in the database (SECRETS_KEY; outside production, the data directory's key). */
  secrets: SecretBox;
  /** The configured carrier (its receipts and inbound texts come to the API); undefined for `log` and `webhook`. */
  carrier?: Carrier;
  /** The carrier of each business's own numbers (and the deployment's own for its shared sender); undefined without a carrier. */
  carriers?: NumberCarriers;
  /** A business without numbers of its own may not send from the shared sender (REQUIRE_BUSINESS_NUMBERS). */
  requireBusinessNumbers: boolean;
  /** What the shared sender carries (SHARED_SENDER_CHANNELS), and the carriers' word on WhatsApp templates. */
  sharedSenderChannels: readonly NumberChannel[];
  templateApprovals?: TemplateApprovals;
  /** Each business number's A2P registration: read from its carrier, and the gate a send passes (REQUIRE_A2P_REGISTRATION). */
  registrations?: NumberRegistrations;
  /** SHARED_SENDER_MATCH_DAYS, in ms: how far back a business's text to a phone answers for its reply on the shared sender. */
  sharedSenderMatchMs: number;
  temporalAddress: string;
  temporalConnection: TemporalConnectionOptions;
  /** The payload codec both the client and the worker use (undefined: payloads unencrypted). */
  dataConverter?: DataConverter;
  namespace: string;
  taskQueue: string;
  webhooks: WebhookSettings;
  /** How batches are sent: chunk size, chunks at once, the pace per sender. */
  campaigns: CampaignSettings;
  /** This process's backpressure on the work it hands to Temporal (the API's routes and the Nexus operations share it). */
  admission: Admissions;
  /** The CRMs' REST bases when not the vendors' (HUBSPOT_API_URL, SALESFORCE_API_URL, PIPEDRIVE_API_URL). */
  crmEndpoints: CrmEndpoints;
  /**
   * What the event webhooks and the `webhook` provider (WEBHOOK_ALLOW_PRIVATE_URLS), and the CRMs' SDKs
   * (CRM_ALLOW_PRIVATE_URLS) connect through: the public-address guard, checked as sockets open.
   */
  webhookNetwork: OutboundNetwork;
  crmNetwork: OutboundNetwork;
  /** How names are resolved outside the guard: a media URL's host at accept. */
  hostLookup: HostLookup;
  /** Marks each accepted message whose workflow start succeeded, a few at a time (the reconciler's recent pass reads the rest). */
  messageStarts: MessageStartConfirmations;
  /** Closes what `openServices` opened (not what was handed in as an override), after the pending webhook hand-overs. */
  stop(): Promise<void>;
}

export type ServiceOverrides = Partial<Pick<Services, 'prisma' | 'temporal' | 'provider' | 'carrier' | 'taskQueue' | 'admission' | 'secrets' | 'requireBusinessNumbers' | 'registrations'>> & {
  /** How the outbound guard resolves names (tests answer with addresses of their choosing); unset: the system's resolver. */
  hostLookup?: HostLookup;
  /** The carrier a business's number sends through (a test's own carrier); unset: the configured carrier's, from the number. */
  numberCarrier?: (account: NumberAccount) => Carrier;
};

/** The one composition root: `npm start`, the API and worker processes, the benchmarks and the tests. */
export async function openServices(config: Config, overrides: ServiceOverrides = {}): Promise<Services> {
  if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS) {
    throw new Error('Set DATABASE_URL and TEMPORAL_ADDRESS (npm start runs both embedded)');
  }
  const secrets = overrides.secrets ?? (await secretBoxOf(config));
  const dataConverter = dataConverterOf(config);
  const closers: (() => Promise<unknown>)[] = [];
  // Deliveries committed by the API or an activity are handed to Temporal right after the commit,
  // through the outbox built below (the hand-over runs only after openServices has returned).
  // A client handed in keeps the hand-over it was built with (none: the sweep starts its deliveries).
  const prisma = overrides.prisma ?? createPrisma(config.DATABASE_URL, config.DATABASE_POOL_SIZE, (deliveries) => outbox.handOver(deliveries));
  if (!overrides.prisma) closers.push(() => prisma.$disconnect());
  let outbox: ReturnType<typeof deliveryOutbox>;
  try {
    const temporal = overrides.temporal ?? (await connectTemporalClient(config.TEMPORAL_ADDRESS, config.TEMPORAL_NAMESPACE, config.temporalConnection, dataConverter));
    if (!overrides.temporal) closers.push(() => temporal.connection.close());
    const taskQueue = overrides.taskQueue ?? config.TEMPORAL_TASK_QUEUE;
    const webhooks = webhookSettingsOf(config);
    const networks = outboundNetworksOf(config, overrides.hostLookup);
    outbox = deliveryOutbox({ prisma, temporal, taskQueue, retry: webhooks.retry }, (error) =>
      logger.warn({ event: 'webhook.hand_over_failed', err: error }, 'webhook deliveries left to the sweep'),
    );
    closers.push(() => outbox.drain());
    const messageStarts = createMessageStartConfirmations(prisma);
    closers.push(() => messageStarts.flush());
    const carrier = 'carrier' in overrides ? overrides.carrier : createCarrier(config);
    const carriers = carrier && numberCarriers(carrier, numberAccounts(prisma, secrets), overrides.numberCarrier ?? ((account) => numberCarrierOf(config, account)));
    return {
      config,
      prisma,
      temporal,
      provider: overrides.provider ?? createProvider(config, prisma, carriers, networks.webhooks),
      secrets,
      carrier,
      carriers,
      requireBusinessNumbers: requireBusinessNumbersOf(config),
      sharedSenderChannels: sharedSenderChannelsOf(config),
      templateApprovals: carriers && templateApprovalsOf(prisma, carriers),
      registrations: overrides.registrations ?? (carriers && numberRegistrations(prisma, carriers, a2pRegistrationSettingsOf(config))),
      sharedSenderMatchMs: config.SHARED_SENDER_MATCH_DAYS * 24 * 60 * 60 * 1000,
      temporalAddress: config.TEMPORAL_ADDRESS,
      temporalConnection: config.temporalConnection,
      dataConverter,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue,
      webhooks,
      campaigns: { chunkSize: config.MESSAGE_BATCH_CHUNK_SIZE, concurrency: config.MESSAGE_BATCH_CONCURRENCY, ratePerSecond: config.MESSAGE_SEND_RATE_PER_SECOND },
      admission: overrides.admission ?? createAdmissions(admissionLimits({ messages: config.MESSAGE_STARTS_IN_FLIGHT, assign: config.ASSIGN_REQUESTS_IN_FLIGHT })),
      messageStarts,
      crmEndpoints: crmEndpointsOf(config),
      webhookNetwork: networks.webhooks,
      crmNetwork: networks.crm,
      hostLookup: overrides.hostLookup ?? systemLookup,
      stop: async () => {
        for (const close of closers.reverse()) await close();
      },
    };
  } catch (error) {
    await prisma.$disconnect();
    throw error;
  }
}

export type ApiOptions = Partial<Pick<AppDeps, 'auth' | 'adminCredentials' | 'adminTokenFile' | 'publicBaseUrl' | 'cursorKey' | 'assignTimeoutMs' | 'assignShedAfterMs' | 'rotationMinPeriodMs' | 'rotationApplyWaitMs' | 'routingMinFirstResponseMs' | 'log' | 'logger' | 'corsOrigins' | 'rateLimitPerMinute' | 'crmInboundRateLimitPerMinute' | 'publicDoorLimits' | 'production' | 'trustProxy' | 'metrics'>>;

/**
 * Production's API does not start without PUBLIC_BASE_URL once a CRM connector exists: the CRMs post to
 * it, and HubSpot signs it. (A carrier without it is refused by loadConfig; a connector's PUT is a 503.)
 */
export async function refuseConnectorsWithoutPublicBaseUrl(services: Pick<Services, 'config' | 'prisma'>): Promise<void> {
  const { config } = services;
  if (config.NODE_ENV !== 'production' || config.PUBLIC_BASE_URL) return;
  const connectors = await services.prisma.crmConnector.count();
  if (connectors > 0) {
    throw new Error(`Invalid configuration: PUBLIC_BASE_URL is required in production once a CRM connector exists (${connectors} do): the public address the CRMs post to, e.g. https://crm.example.com`);
  }
}

/** The API on these services, with the HTTP settings of the configuration. */
export function createApi(services: Services, options: ApiOptions = {}) {
  const { config } = services;
  return createApp({
    ...services,
    corsOrigins: config.CORS_ORIGINS,
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
    crmInboundRateLimitPerMinute: config.CRM_INBOUND_RATE_LIMIT_PER_MINUTE,
    publicDoorLimits: { perSource: config.PUBLIC_DOOR_LIMIT_PER_SOURCE, failedPerSource: config.PUBLIC_DOOR_UNVERIFIED_LIMIT_PER_SOURCE, failedTotal: config.PUBLIC_DOOR_UNVERIFIED_LIMIT_TOTAL },
    production: config.NODE_ENV === 'production',
    trustProxy: config.TRUST_PROXY,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    smsHelpText: config.SMS_HELP_TEXT,
    ...options,
    auth: options.auth ?? authConfigOf(config),
    adminCredentials: 'adminCredentials' in options ? options.adminCredentials : adminCredentialsOf(config),
    cursorKey: options.cursorKey ?? cursorKeyOf(config),
  });
}

export function runWorker(services: Services, options: WorkerOptions = {}): Promise<RunningWorker> {
  return startWorker(services, { reconcileBusinesses: services.config.RECONCILE_BUSINESSES, versioning: workerVersioningOf(services.config), ...options });
}

/** The remote codec for the Temporal UI and CLI: only with keys and a credential to ask for; browsers only from CODEC_CORS_ORIGINS. */
function codecEndpointOf(services: Services): CodecEndpoint | undefined {
  const codec = services.dataConverter?.payloadCodecs?.[0];
  const credentials = codecCredentialsOf(services.config);
  if (codec && !credentials) logEvent('codec.off', { reason: 'set CODEC_AUTH_TOKEN or CODEC_JWT_AUDIENCE to serve /codec' });
  return codec && credentials ? { codec, credentials, origins: services.config.CODEC_CORS_ORIGINS, namespace: services.namespace } : undefined;
}

/**
 * Seals, in the background, the stored secrets not yet under SECRETS_KEY's first key (plain rows from
 * before encryption at rest, rows of a key being rotated out). Logs counts and row ids, never a secret.
 */
function resealAtBoot(services: Services): void {
  resealStoredSecrets(services.prisma, services.secrets).then(
    ({ webhookSubscriptions: { resealed, unreadable }, numberCredentials }) => {
      if (resealed || numberCredentials.resealed) logEvent('secrets.resealed', { keyId: services.secrets.currentKeyId, webhookSubscriptions: resealed, numberCredentials: numberCredentials.resealed });
      if (unreadable.length || numberCredentials.unreadable.length) {
        logger.warn({ event: 'secrets.unreadable', webhookSubscriptions: unreadable, numberCredentials: numberCredentials.unreadable }, 'stored secrets sealed with a key SECRETS_KEY lacks: add it back');
      }
    },
    (error) => logger.warn({ event: 'secrets.reseal_failed', err: error }, 'stored secrets left as they are until the next boot or npm run secrets:rotate'),
  );
}

/** The worker with its metrics and health endpoint on `port`, and the housekeeping run (reconciler passes, webhook sweep); `sdkMetricsAddress` is where the runtime exports its own. */
export async function runObservedWorker(services: Services, port: number, sdkMetricsAddress?: string) {
  const metrics = workerMetrics(services.prisma);
  const bundlePath = services.config.WORKFLOW_BUNDLE_PATH;
  // A database from before this build's workflow generation: its old runs end before the worker polls.
  const earlier = await endEarlierRuns(services);
  const worker = await runWorker(services, { workflowBundle: bundlePath ? { codePath: bundlePath } : undefined, observeLateness: metrics.observeLateness, observeReconcilerRestart: metrics.observeReconcilerRestart });
  const upgraded = earlier && finishUpgradeInBackground(services, earlier.runsEnded);
  const housekeeping = { sweepEveryMs: Math.max(WEBHOOK_SWEEP_BACKSTOP_EVERY_MS, services.webhooks.sweepEveryMs), sweepGraceMs: services.webhooks.sweepGraceMs };
  await removeHousekeepingSchedules(services.temporal, services.taskQueue);
  await ensureHousekeeping(services.temporal, services.taskQueue, housekeeping);
  resealAtBoot(services);
  const versionWatch = worker.version && watchOlderVersions({
    temporal: services.temporal,
    version: worker.version,
    onWoken: (count) => logEvent('worker.version_wake', { version: versionName(worker.version!), clientRuns: count }),
    onError: (error) => logger.warn({ event: 'worker.version_wake_failed', err: error }, 'client runs on an older version wait for the next look'),
  });
  const sweepWatch = keepHousekeeping({
    prisma: services.prisma,
    temporal: services.temporal,
    taskQueue: services.taskQueue,
    input: housekeeping,
    everyMs: services.webhooks.sweepEveryMs,
    onError: (error) => logger.warn({ event: 'webhook.sweep_trigger_failed', err: error }, 'the sweep waits for its next look or the housekeeping run\'s hour'),
  });
  const http = await serveWorkerHttp({
    port,
    host: services.config.WORKER_HTTP_HOST,
    metrics: metrics.registry,
    sdkMetricsUrl: sdkMetricsAddress && `http://${sdkMetricsAddress}/metrics`,
    running: worker.running,
    codec: codecEndpointOf(services),
  });
  return {
    worker,
    port: http.port,
    /** Resolves once the upgrade of an earlier generation's runs, if this start made one, is done (or failed, logged). */
    upgraded: upgraded ?? Promise.resolve(),
    done: worker.done,
    stop: async () => {
      sweepWatch.stop();
      await versionWatch?.stop();
      // Its calls would otherwise outlive the connection; an upgrade cut short is taken up again at the next start.
      await upgraded;
      await worker.stop();
      await http.stop();
    },
  };
}
