import type { AcceptDeps } from '../use-cases/messages/accept';
import type { CampaignSettings } from '../activities/messages/send-message-batch';
import { existsSync } from 'node:fs';
import { ensureSearchAttributes } from '../starters/search-attributes';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkerOptions as SdkWorkerOptions } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { createActivities, type ActivityDeps } from '../activities';
import type { MessageProvider } from '../activities/providers';
import type { Carrier } from '../carriers';
import type { NumberRegistrations } from '../use-cases/numbers/registration';
import type { Prisma } from '../db/prisma';
import type { CrmEndpoints, TemporalConnectionOptions, WebhookSettings } from '../config/index';
import type { OutboundNetwork } from '../net/outbound';
import { crmServiceHandler } from '../nexus/service';
import type { MessageStartConfirmations } from '../db/message-start-confirmations';
import { PREBUILT_WORKFLOW_BUNDLE, WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../paths';
import { requestIdInterceptor } from './request-id-interceptor';
import { activityTracing, nexusTracing, workflowSpanSinks } from '../telemetry/temporal';
import { taskQueuesOf, type TaskQueueRole } from '../domain';
import { polledQueuesOf, WORKER_TUNING } from './tuning';
import type { Admissions } from '../starters/admission';
import type { SecretBox } from '../secrets/secret-box';
import type { WorkerVersioning } from '../config/worker-versioning';
import { becomeCurrent, buildIdOf, bundleCodeOf, deploymentOptionsOf, type DeploymentVersion } from './versioning';

type WorkflowBundle = NonNullable<SdkWorkerOptions['workflowBundle']>;

export interface WorkerDeps {
  temporalAddress: string;
  temporalConnection?: TemporalConnectionOptions;
  dataConverter?: DataConverter;
  namespace: string;
  taskQueue: string;
  prisma: Prisma;
  temporal: Client;
  provider: MessageProvider;
  /** Opens the webhook subscriptions' sealed secrets (SECRETS_KEY). */
  secrets: SecretBox;
  webhooks?: WebhookSettings;
  /** The process's backpressure, shared with its API: the Nexus operations go through it too. */
  admission?: Admissions;
  /** The configured carrier (its sender: opt-outs, suppression); undefined for `log` and `webhook`. */
  carrier?: Carrier;
  /** REQUIRE_BUSINESS_NUMBERS: the Nexus operations refuse a send as POST /messages does. */
  requireBusinessNumbers?: boolean;
  /** The Nexus sends check each channel's rules as POST /messages does. */
  sharedSenderChannels?: AcceptDeps['sharedSenderChannels'];
  templateApprovals?: AcceptDeps['templateApprovals'];
  /** Each number's A2P registration: the gate of sends (activities and Nexus) and the scheduled refresh. */
  registrations?: NumberRegistrations;
  /** How batches are sent (MESSAGE_BATCH_CHUNK_SIZE, MESSAGE_BATCH_CONCURRENCY, MESSAGE_SEND_RATE_PER_SECOND). */
  campaigns?: CampaignSettings;
  /** Marks the messages the Nexus operations start (see Services). */
  messageStarts?: MessageStartConfirmations;
  /** The CRMs' REST bases when not the vendors' (CRM_* _API_URL). */
  crmEndpoints?: CrmEndpoints;
  /** What the webhooks and the CRMs' SDKs connect through (see Services). */
  webhookNetwork?: OutboundNetwork;
  crmNetwork?: OutboundNetwork;
  /** How the Nexus sends resolve a media URL's host (see Services). */
  hostLookup?: AcceptDeps['hostLookup'];
}

export interface WorkerOptions {
  /** A prebuilt workflow bundle (tests build it once); otherwise the workflows are bundled at start. */
  workflowBundle?: SdkWorkerOptions['workflowBundle'];
  observeLateness?: (seconds: number) => void;
  observeReconcilerRestart?: ActivityDeps['observeReconcilerRestart'];
  /** The businesses the housekeeping run's reconciler passes cover (RECONCILE_BUSINESSES); all when unset. */
  reconcileBusinesses?: ActivityDeps['reconcileBusinesses'];
  /** Polls as a version of a Worker Deployment (WORKER_* settings); unset: unversioned. */
  versioning?: WorkerVersioning;
}

export interface RunningWorker {
  /** One SDK worker per task queue (see taskQueuesOf), all in this process on one connection. */
  workers: Worker[];
  running(): boolean;
  /** The version it polls as; undefined when unversioned. */
  version?: DeploymentVersion;
  /** The workflow bundle it runs. */
  workflowBundle: WorkflowBundle;
  /** Whether that version was its deployment's current one once the worker polled (WORKER_SET_CURRENT). */
  current: boolean;
  /** Resolves once every worker has shut down and the connection is closed. */
  done: Promise<void>;
  stop(): Promise<void>;
}

/**
 * The workflows and their interceptors bundled: by `npm run build`, and by a worker without a prebuilt
 * bundle (running from src/) once for every task queue's worker, rather than once per worker (five
 * webpack runs, about 3 s of CPU each).
 */
export async function bundleWorkflows(): Promise<{ code: string }> {
  const silent = () => undefined;
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: { log: silent, trace: silent, debug: silent, info: silent, warn: console.warn, error: console.error },
  });
  return { code };
}

export async function startWorker(deps: WorkerDeps, options: WorkerOptions = {}): Promise<RunningWorker> {
  await ensureSearchAttributes(deps.temporal.connection.operatorService, deps.namespace);
  const workflowBundle: WorkflowBundle = options.workflowBundle ?? (existsSync(PREBUILT_WORKFLOW_BUNDLE) ? { codePath: PREBUILT_WORKFLOW_BUNDLE } : await bundleWorkflows());
  const version = options.versioning && { deploymentName: options.versioning.deploymentName, buildId: options.versioning.buildId ?? buildIdOf(await bundleCodeOf(workflowBundle)) };
  const connection = await NativeConnection.connect({ address: deps.temporalAddress, ...deps.temporalConnection });
  const activities = createActivities({
    prisma: deps.prisma,
    temporal: deps.temporal,
    taskQueue: deps.taskQueue,
    provider: deps.provider,
    secrets: deps.secrets,
    webhooks: deps.webhooks,
    carrier: deps.carrier,
    requireBusinessNumbers: deps.requireBusinessNumbers,
    registrations: deps.registrations,
    campaigns: deps.campaigns,
    crmEndpoints: deps.crmEndpoints,
    webhookNetwork: deps.webhookNetwork,
    crmNetwork: deps.crmNetwork,
    observeLateness: options.observeLateness,
    observeReconcilerRestart: options.observeReconcilerRestart,
    reconcileBusinesses: options.reconcileBusinesses,
  });
  const queues = taskQueuesOf(deps.taskQueue);
  let workers: Worker[];
  try {
    workers = await Promise.all(
      (Object.keys(queues) as TaskQueueRole[]).map((role) =>
        Worker.create({
          connection,
          namespace: deps.namespace,
          taskQueue: queues[role],
          dataConverter: deps.dataConverter,
          // The bundle carries the workflow interceptors. The activity's span is opened first, so the request id lands on it.
          workflowBundle,
          ...(version && { workerDeploymentOptions: deploymentOptionsOf(version) }),
          interceptors: {
            activity: [...activityTracing(), requestIdInterceptor],
            nexus: nexusTracing(),
          },
          sinks: workflowSpanSinks(),
          activities,
          ...(role === 'base' && { nexusServices: [crmServiceHandler({ prisma: deps.prisma, temporal: deps.temporal, taskQueue: deps.taskQueue, admission: deps.admission, carrier: deps.carrier, requireBusinessNumbers: deps.requireBusinessNumbers, messageStarts: deps.messageStarts, sharedSenderChannels: deps.sharedSenderChannels, templateApprovals: deps.templateApprovals, registrations: deps.registrations, hostLookup: deps.hostLookup })] }),
          ...WORKER_TUNING[role],
        }),
      ),
    );
  } catch (error) {
    await connection.close();
    throw error;
  }
  const runs = workers.map((worker) => worker.run());
  const done = (async () => {
    try {
      await Promise.all(runs);
    } catch (error) {
      // One worker failing stops the others: the process is not whole without it.
      for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
      await Promise.allSettled(runs);
      throw error;
    } finally {
      await connection.close();
    }
  })();
  const stop = async () => {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    await done;
  };
  let current = false;
  try {
    // Before the caller starts any run (the housekeeping one): a run started while no version is current waits for an unversioned worker.
    if (version) current = await becomeCurrent(deps.temporal, deps.namespace, version, polledQueuesOf(queues), options.versioning!.setCurrent);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    workers,
    running: () => workers.every((worker) => worker.getState() === 'RUNNING'),
    version,
    workflowBundle,
    current,
    done,
    stop,
  };
}
