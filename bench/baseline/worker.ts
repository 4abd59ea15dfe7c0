import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { BenchStack } from '../stack';
import { createRawActivities } from './activities';

export const RAW_TASK_QUEUE = 'bench-raw';

/**
 * A plain worker for the raw pipelines on the stack's Temporal server, on a task queue of its own.
 * `tuning` gives it the same slot and poller settings as the project's worker under comparison.
 */
export async function startRawWorker(stack: BenchStack, tuning: Partial<WorkerOptions> = {}) {
  await stack.prisma.$executeRawUnsafe('CREATE TABLE IF NOT EXISTS bench_raw (id text PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())');
  const connection = await NativeConnection.connect({ address: stack.temporalAddress });
  const raw = createRawActivities(stack.prisma);
  const worker = await Worker.create({
    connection,
    taskQueue: RAW_TASK_QUEUE,
    workflowsPath: require.resolve('./workflows'),
    activities: raw.activities,
    ...tuning,
  });
  const done = worker.run().finally(() => connection.close());
  return {
    ...raw,
    async stop() {
      worker.shutdown();
      await done;
    },
  };
}
