import type { Client as TemporalClient } from '@temporalio/client';
import { wakeClientRunsOffVersions } from '../starters/client-workflow';
import { versionName, type DeploymentVersion } from './versioning';

/** How often a worker whose version is current looks for client runs left on another version. */
export const VERSION_WAKE_EVERY_MS = 60_000;
/** When a run signaled and still on another version is signaled again: one that cannot move yet (its version's workers are gone) costs a task this often. */
export const VERSION_WAKE_AGAIN_AFTER_MS = 5 * 60_000;

/** The deployment's current and ramping build ids. */
async function routingOf(temporal: TemporalClient, deploymentName: string): Promise<{ current?: string; ramping?: string }> {
  const described = await temporal.workflowService.describeWorkerDeployment({ namespace: temporal.options.namespace, deploymentName });
  const routing = described.workerDeploymentInfo?.routingConfig;
  return { current: routing?.currentDeploymentVersion?.buildId || undefined, ramping: routing?.rampingDeploymentVersion?.buildId || undefined };
}

/**
 * Wakes the open client runs pinned to a version of `version`'s deployment other than it and than the
 * ramping one: a client run asleep on a far clock sees its new target only at its next workflow task, and
 * then continues as new onto it. `woken` holds when each run was signaled, so that a run that cannot move
 * yet is signaled again only `againAfterMs` later.
 */
export async function wakeClientRunsOnOlderVersions(temporal: TemporalClient, version: DeploymentVersion, woken = new Map<string, number>(), againAfterMs = VERSION_WAKE_AGAIN_AFTER_MS): Promise<number> {
  const { ramping } = await routingOf(temporal, version.deploymentName);
  const keep = [versionName(version), ...(ramping ? [versionName({ deploymentName: version.deploymentName, buildId: ramping })] : [])];
  return wakeClientRunsOffVersions(temporal, version.deploymentName, keep, woken, againAfterMs);
}

/**
 * While this worker's version is its deployment's current one, every `everyMs` it wakes the client runs
 * left on an older version (wakeClientRunsOnOlderVersions): within that bound of a new version becoming
 * current, each such run moves to it (docs/design.md, "Worker Versioning").
 */
export function watchOlderVersions(deps: { temporal: TemporalClient; version: DeploymentVersion; everyMs?: number; onWoken?: (count: number) => void; onError?: (error: unknown) => void }): { stop(): Promise<void> } {
  const woken = new Map<string, number>();
  // A look in flight when the worker stops is cancelled and awaited: its calls' retries would otherwise
  // fire on the connection closed after the worker (an uncaught error that ends the process).
  const stopping = new AbortController();
  let busy: Promise<void> | undefined;
  const lookOnce = async () => {
    try {
      const { current } = await routingOf(deps.temporal, deps.version.deploymentName);
      if (current !== deps.version.buildId) return;
      const count = await wakeClientRunsOnOlderVersions(deps.temporal, deps.version, woken);
      if (count > 0) deps.onWoken?.(count);
    } catch (error) {
      if (!stopping.signal.aborted) deps.onError?.(error);
    }
  };
  const look = () => {
    if (busy || stopping.signal.aborted) return;
    busy = deps.temporal.withAbortSignal(stopping.signal, lookOnce).finally(() => (busy = undefined));
  };
  look();
  const timer = setInterval(look, deps.everyMs ?? VERSION_WAKE_EVERY_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      stopping.abort();
      await busy;
    },
  };
}
