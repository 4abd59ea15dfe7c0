import type { Config } from './index';

/** When a worker makes its version its deployment's current one (src/worker/versioning.ts). */
export type SetCurrent = 'always' | 'if-none' | 'never';

/** How the worker polls: as a version of a Worker Deployment (docs/operations.md, "Deploying a new worker build"). */
export interface WorkerVersioning {
  deploymentName: string;
  /** WORKER_BUILD_ID; unset: derived from the workflow bundle's content. */
  buildId?: string;
  setCurrent: SetCurrent;
}

/**
 * The WORKER_* versioning settings; undefined with WORKER_VERSIONING=off. The deployment is named after
 * the task queue unless WORKER_DEPLOYMENT_NAME says otherwise: `crm-messaging` by default, and a stack
 * of its own on a shared server (a test's, a second `npm start`) does not join another's deployment.
 */
export function workerVersioningOf(config: Pick<Config, 'WORKER_VERSIONING' | 'WORKER_DEPLOYMENT_NAME' | 'WORKER_BUILD_ID' | 'WORKER_SET_CURRENT' | 'TEMPORAL_TASK_QUEUE'>): WorkerVersioning | undefined {
  if (config.WORKER_VERSIONING === 'off') return undefined;
  return {
    deploymentName: config.WORKER_DEPLOYMENT_NAME ?? config.TEMPORAL_TASK_QUEUE,
    ...(config.WORKER_BUILD_ID && { buildId: config.WORKER_BUILD_ID }),
    setCurrent: config.WORKER_SET_CURRENT ?? 'if-none',
  };
}
