import { existsSync } from 'node:fs';
import { ensureSearchAttributes } from '../temporal/search-attributes';
import { NativeConnection, Worker, type WorkerOptions as SdkWorkerOptions } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { createActivities } from '../activities';
import type { MessageProvider } from '../activities/providers';
import type { Prisma } from '../db/prisma';
import type { TemporalConnectionOptions, WebhookSettings } from '../config';
import { crmServiceHandler } from '../nexus/service';
import { PREBUILT_WORKFLOW_BUNDLE, WORKFLOW_INTERCEPTORS_PATH, WORKFLOWS_PATH } from '../paths';
import { requestIdInterceptor } from './request-id-interceptor';

export interface WorkerDeps {
  temporalAddress: string;
  temporalConnection?: TemporalConnectionOptions;
  dataConverter?: DataConverter;
  namespace: string;
  taskQueue: string;
  prisma: Prisma;
  temporal: Client;
  provider: MessageProvider;
  webhooks?: WebhookSettings;
}

export interface WorkerOptions {
  /** A prebuilt workflow bundle (tests build it once); otherwise the workflows are bundled at start. */
  workflowBundle?: SdkWorkerOptions['workflowBundle'];
  observeLateness?: (seconds: number) => void;
}

export interface RunningWorker {
  worker: Worker;
  /** Resolves once the worker has shut down and its connection is closed. */
  done: Promise<void>;
  stop(): Promise<void>;
}

export async function startWorker(deps: WorkerDeps, options: WorkerOptions = {}): Promise<RunningWorker> {
  await ensureSearchAttributes(deps.temporal.connection.operatorService, deps.namespace);
  const workflowBundle = options.workflowBundle ?? (existsSync(PREBUILT_WORKFLOW_BUNDLE) ? { codePath: PREBUILT_WORKFLOW_BUNDLE } : undefined);
  const connection = await NativeConnection.connect({ address: deps.temporalAddress, ...deps.temporalConnection });
  const worker = await Worker.create({
    connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    dataConverter: deps.dataConverter,
    // A prebuilt bundle carries the workflow interceptors already (npm run build, test/support/global-setup.ts).
    ...(workflowBundle
      ? { workflowBundle, interceptors: { activity: [requestIdInterceptor] } }
      : { workflowsPath: WORKFLOWS_PATH, interceptors: { workflowModules: [WORKFLOW_INTERCEPTORS_PATH], activity: [requestIdInterceptor] } }),
    activities: createActivities({
      prisma: deps.prisma,
      temporal: deps.temporal,
      taskQueue: deps.taskQueue,
      provider: deps.provider,
      webhooks: deps.webhooks,
      observeLateness: options.observeLateness,
    }),
    nexusServices: [crmServiceHandler({ prisma: deps.prisma, temporal: deps.temporal, taskQueue: deps.taskQueue })],
  });
  const done = worker.run().finally(() => connection.close());
  return {
    worker,
    done,
    stop: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
