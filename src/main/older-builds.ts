import { copyFile, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { logEvent, logger } from '../logger';
import type { RunningWorker } from '../worker';
import { versionName, type DeploymentVersion } from '../worker/versioning';
import { runWorker, type Services } from './services';

/** How often `npm start` looks whether an older build it serves still has open runs. */
export const OLDER_BUILD_LOOK_MS = 30_000;

const openRuns = async (services: Services, version: DeploymentVersion) =>
  (await services.temporal.workflow.count(`ExecutionStatus = 'Running' AND TemporalWorkerDeploymentVersion = '${versionName(version)}'`)).count;

/** The worker's bundle kept as `{build id}.js` in `dir`, once. */
async function keepBundle(worker: RunningWorker, file: string): Promise<void> {
  if (existsSync(file)) return;
  const bundle = worker.workflowBundle;
  if ('code' in bundle) await writeFile(file, bundle.code, { mode: 0o600 });
  else await copyFile(bundle.codePath, file);
}

interface OlderBuild {
  version: DeploymentVersion;
  file: string;
  worker?: RunningWorker;
  idleLooks: number;
}

/**
 * `npm start` runs one build, and a restart after a change of workflow code is a new version: the runs
 * pinned to the build before would wait for a worker of it for ever. So `npm start` keeps each build's
 * bundle in the data directory (`workflow-bundles/{build id}.js`) and, while a kept version has open runs,
 * runs a worker of it beside its own (never current): its short runs finish there, and its client runs,
 * woken by the current version's workers (src/worker/version-wake.ts), move. Once no run of it is open at
 * two looks in a row (visibility lags a little), that worker stops and the bundle goes.
 */
export async function serveOlderBuilds(services: Services, own: RunningWorker, dir: string, lookEveryMs = OLDER_BUILD_LOOK_MS): Promise<{ stop(): Promise<void> }> {
  const version = own.version;
  if (!version) return { stop: async () => undefined };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await keepBundle(own, join(dir, `${version.buildId}.js`));
  const older: OlderBuild[] = (await readdir(dir))
    .filter((file) => file.endsWith('.js') && file !== `${version.buildId}.js`)
    .map((file) => ({ version: { deploymentName: version.deploymentName, buildId: file.slice(0, -3) }, file: join(dir, file), idleLooks: 0 }));
  const serve = async (build: OlderBuild) => {
    if ((await openRuns(services, build.version)) > 0) {
      build.idleLooks = 0;
      if (build.worker) return;
      build.worker = await runWorker(services, { workflowBundle: { codePath: build.file }, versioning: { ...build.version, setCurrent: 'never' } });
      logEvent('worker.older_build', { version: versionName(build.version) });
    } else if (!build.worker || ++build.idleLooks >= 2) {
      await build.worker?.stop();
      build.worker = undefined;
      await rm(build.file, { force: true });
      older.splice(older.indexOf(build), 1);
      logEvent('worker.older_build_drained', { version: versionName(build.version) });
    }
  };
  let busy: Promise<void> = Promise.resolve();
  const look = () => {
    busy = busy.then(async () => {
      for (const build of [...older]) await serve(build).catch((error) => logger.warn({ event: 'worker.older_build_failed', version: versionName(build.version), err: error }, 'looked at again shortly'));
    });
  };
  look();
  const timer = setInterval(look, lookEveryMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await busy;
      for (const build of older) await build.worker?.stop();
    },
  };
}
