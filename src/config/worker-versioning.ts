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
 * Under temporal-worker-controller the pods carry the version the controller registered
 * (TEMPORAL_DEPLOYMENT_NAME, TEMPORAL_WORKER_BUILD_ID), and the controller alone ramps and promotes.
 */
export function workerVersioningOf(
  config: Pick<Config, 'WORKER_VERSIONING' | 'WORKER_DEPLOYMENT_NAME' | 'WORKER_BUILD_ID' | 'WORKER_SET_CURRENT' | 'TEMPORAL_TASK_QUEUE' | 'TEMPORAL_DEPLOYMENT_NAME' | 'TEMPORAL_WORKER_BUILD_ID'>,
): WorkerVersioning | undefined {
  if (config.WORKER_VERSIONING === 'off') return undefined;
  const controlled = Boolean(config.TEMPORAL_DEPLOYMENT_NAME && config.TEMPORAL_WORKER_BUILD_ID);
  const buildId = config.WORKER_BUILD_ID ?? config.TEMPORAL_WORKER_BUILD_ID;
  return {
    deploymentName: config.WORKER_DEPLOYMENT_NAME ?? config.TEMPORAL_DEPLOYMENT_NAME ?? config.TEMPORAL_TASK_QUEUE,
    ...(buildId && { buildId }),
    setCurrent: config.WORKER_SET_CURRENT ?? (controlled ? 'never' : 'if-none'),
  };
}
