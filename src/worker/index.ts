import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { createActivities } from '../activities';
import type { MessageProvider } from '../activities/providers';
import type { Prisma } from '../db/prisma';

export interface WorkerDeps {
  address: string;
  namespace: string;
  taskQueue: string;
  prisma: Prisma;
  temporal: Client;
  provider: MessageProvider;
  /** A prebuilt workflow bundle (tests build it once); otherwise the workflows are bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

export interface RunningWorker {
  worker: Worker;
  /** Resolves once the worker has shut down and its connection is closed. */
  done: Promise<void>;
  stop(): Promise<void>;
}

export async function startWorker(deps: WorkerDeps): Promise<RunningWorker> {
  const connection = await NativeConnection.connect({ address: deps.address });
  const worker = await Worker.create({
    connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    ...(deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : { workflowsPath: require.resolve('../workflows') }),
    activities: createActivities({ prisma: deps.prisma, temporal: deps.temporal, taskQueue: deps.taskQueue, provider: deps.provider }),
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
