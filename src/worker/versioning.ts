import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Client } from '@temporalio/client';
import type { WorkerDeploymentOptions } from '@temporalio/worker';
import type { SetCurrent } from '../config/worker-versioning';

/*
 * Worker Versioning: every worker polls as a version (deployment name, build id) of a Worker Deployment,
 * and every workflow it runs is pinned to the version that started it (docs/design.md, "Worker
 * Versioning"). Only a change of workflow code makes a new version: the build id is a hash of the bundle.
 */

export interface DeploymentVersion {
  deploymentName: string;
  buildId: string;
}

/** The build id of a workflow bundle: its content's hash, so the same workflow code is the same version wherever it is built. */
export function buildIdOf(bundleCode: string): string {
  return `wf-${createHash('sha256').update(bundleCode).digest('hex').slice(0, 16)}`;
}

/** The bundle's code, read from its file when it is one. */
export async function bundleCodeOf(bundle: { code: string } | { codePath: string }): Promise<string> {
  return 'code' in bundle ? bundle.code : readFile(bundle.codePath, 'utf8');
}

/** The SDK's options for a worker of `version`; pinned is every workflow's behavior unless its definition says otherwise. */
export function deploymentOptionsOf(version: DeploymentVersion): WorkerDeploymentOptions {
  return { useWorkerVersioning: true, version, defaultVersioningBehavior: 'PINNED' };
}

/** `deploymentName:buildId`, as the CLI, the UI and the TemporalWorkerDeploymentVersion search attribute show a version. */
export const versionName = (version: DeploymentVersion): string => `${version.deploymentName}:${version.buildId}`;

type WorkflowService = Client['workflowService'];

/** gRPC status codes. */
const NOT_FOUND = 5;
const FAILED_PRECONDITION = 9;

/** The deployment's current version (none: unversioned workers serve it) and the token that guards a change against a concurrent one. */
async function currentVersionOf(service: WorkflowService, namespace: string, deploymentName: string): Promise<{ buildId?: string; conflictToken?: Uint8Array }> {
  try {
    const described = await service.describeWorkerDeployment({ namespace, deploymentName });
    const current = described.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion;
    return { buildId: current?.buildId || undefined, conflictToken: described.conflictToken ?? undefined };
  } catch (error) {
    if ((error as { code?: number }).code === NOT_FOUND) return {};
    throw error;
  }
}

/** What a worker polls a task queue for, as the server registers it in a version: one registration each. */
export type PollKind = 'workflow' | 'activity' | 'nexus';

/** A task queue and the kinds of task its worker polls there. */
export interface PolledQueue {
  name: string;
  kinds: readonly PollKind[];
}

/** temporal.api.enums.v1.TaskQueueType. */
const TASK_QUEUE_TYPE: Record<PollKind, number> = { workflow: 1, activity: 2, nexus: 3 };

/** Whether each kind of poll of each of `queues` has reached the server as part of the version. */
async function registered(service: WorkflowService, namespace: string, version: DeploymentVersion, queues: readonly PolledQueue[]): Promise<boolean> {
  try {
    const described = await service.describeWorkerDeploymentVersion({ namespace, deploymentVersion: version });
    const seen = new Set((described.workerDeploymentVersionInfo?.taskQueueInfos ?? []).map((queue) => `${queue.type}:${queue.name}`));
    return queues.every(({ name, kinds }) => kinds.every((kind) => seen.has(`${TASK_QUEUE_TYPE[kind]}:${name}`)));
  } catch (error) {
    if ((error as { code?: number }).code === NOT_FOUND) return false;
    throw error;
  }
}

/** Not yet: the version is registered by its first polls, a moment after the worker starts. */
const notYetPolled = (error: unknown) => [NOT_FOUND, FAILED_PRECONDITION].includes((error as { code?: number }).code ?? -1);

/**
 * Makes `version` its deployment's current version, as `mode` says: `always`, or `if-none` (only while
 * the deployment has none: a first deployment, nothing to roll out from). Waits first until every poll
 * of `queues` is registered: a version made current with some of its queues not yet registered would
 * leave their tasks to unversioned workers, and a poll still waiting for its registration when the
 * worker stops is logged by the server as an error. Returns whether the version is current.
 */
export async function becomeCurrent(client: Client, namespace: string, version: DeploymentVersion, queues: readonly PolledQueue[], mode: SetCurrent, timeoutMs = 60_000): Promise<boolean> {
  if (mode === 'never') return false;
  const deadline = Date.now() + timeoutMs;
  const service = client.workflowService;
  for (;;) {
    try {
      if (await registered(service, namespace, version, queues)) return await setCurrent(service, namespace, version, mode);
    } catch (error) {
      if (!notYetPolled(error) || Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`The task queues of ${versionName(version)} did not all reach the server within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function setCurrent(service: WorkflowService, namespace: string, version: DeploymentVersion, mode: 'always' | 'if-none'): Promise<boolean> {
  const current = await currentVersionOf(service, namespace, version.deploymentName);
  if (current.buildId === version.buildId) return true;
  if (mode === 'if-none' && current.buildId) return false;
  await service.setWorkerDeploymentCurrentVersion({
    namespace,
    deploymentName: version.deploymentName,
    buildId: version.buildId,
    // `if-none`: refused if another worker set one since the read (FAILED_PRECONDITION: the next round sees it).
    ...(mode === 'if-none' && current.conflictToken && { conflictToken: current.conflictToken }),
    identity: `crm-messaging worker ${process.pid}`,
  });
  return true;
}
