import type { WorkerOptions } from '@temporalio/worker';

/** The slot and poller settings of the worker that delivers messages (SDK defaults for now). */
export function messageWorkerTuning(): Partial<WorkerOptions> {
  return {};
}
