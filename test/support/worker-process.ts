import { testPort } from './ports';
import { runEntryPoint, type RunningProcess } from './process';

/**
 * `npm run worker` as a process of its own against the shared test servers, on a suite's task queue,
 * reconciling the suite's business only, ready once it says it is running: what a crash test kills with
 * SIGKILL and starts again.
 */
export async function startWorkerProcess({ taskQueue, business }: { taskQueue: string; business: string }, env: Record<string, string> = {}): Promise<RunningProcess> {
  const port = await testPort();
  const worker = runEntryPoint(
    'src/main/worker.ts',
    {
      DATABASE_URL: process.env.TEST_DATABASE_URL!,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
      TEMPORAL_TASK_QUEUE: taskQueue,
      RECONCILE_BUSINESSES: business,
      WORKER_HTTP_PORT: String(port),
      // Beside the suite's own worker, which is unversioned (test/support/stack.ts).
      WORKER_VERSIONING: 'off',
      ...env,
    },
    '"event":"worker.running"',
    { ports: [port] },
  );
  await worker.ready;
  return worker;
}
