import { loadConfig } from '../../src/config/index';
import { workerVersioningOf } from '../../src/config/worker-versioning';
import { taskQueuesOf } from '../../src/domain';
import { polledQueuesOf } from '../../src/worker/tuning';
import { buildIdOf, deploymentOptionsOf, versionName } from '../../src/worker/versioning';

/* Worker Versioning's settings and the build id (src/config/worker-versioning.ts, src/worker/versioning.ts). */

describe('the WORKER_* settings', () => {
  test.each<[string, Record<string, string>, ReturnType<typeof workerVersioningOf>]>([
    ['by default: a version of the deployment named after the task queue, the build id from the bundle, current only if the deployment has none', {}, { deploymentName: 'crm-messaging', setCurrent: 'if-none' }],
    ['another task queue: a deployment of its own', { TEMPORAL_TASK_QUEUE: 'tq-7' }, { deploymentName: 'tq-7', setCurrent: 'if-none' }],
    ['each overridden', { WORKER_DEPLOYMENT_NAME: 'crm', WORKER_BUILD_ID: '2026-11-29.1', WORKER_SET_CURRENT: 'never' }, { deploymentName: 'crm', buildId: '2026-11-29.1', setCurrent: 'never' }],
    [
      'under temporal-worker-controller: the version the controller registered, never made current by the worker',
      { TEMPORAL_DEPLOYMENT_NAME: 'crm/crm-messaging-worker', TEMPORAL_WORKER_BUILD_ID: 'wf-0123456789abcdef' },
      { deploymentName: 'crm/crm-messaging-worker', buildId: 'wf-0123456789abcdef', setCurrent: 'never' },
    ],
    ['the WORKER_* settings before the controller\'s', { TEMPORAL_DEPLOYMENT_NAME: 'crm/w', TEMPORAL_WORKER_BUILD_ID: 'b1', WORKER_DEPLOYMENT_NAME: 'crm', WORKER_BUILD_ID: 'b2' }, { deploymentName: 'crm', buildId: 'b2', setCurrent: 'never' }],
    ['WORKER_VERSIONING=off: unversioned', { WORKER_VERSIONING: 'off', WORKER_BUILD_ID: 'b1' }, undefined],
  ])('%s', (_name, env, expected) => {
    expect(workerVersioningOf(loadConfig(env))).toEqual(expected);
  });

  test.each([
    ['WORKER_BUILD_ID', 'a:b'],
    ['WORKER_DEPLOYMENT_NAME', 'crm messaging'],
    ['WORKER_SET_CURRENT', 'sometimes'],
    ['WORKER_VERSIONING', 'yes'],
  ])('%s=%s is refused at boot', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(`Invalid configuration: ${name}`);
  });
});

describe('the build id: the workflow bundle\'s content, so only a change of workflow code makes a new version', () => {
  test('the same code, the same id; one character more, another', () => {
    const code = 'exports.clientOwnership = async () => ({ outcome: "idle" });';
    expect(buildIdOf(code)).toBe(buildIdOf(`${code}`));
    expect(buildIdOf(`${code} `)).not.toBe(buildIdOf(code));
    expect(buildIdOf(code)).toMatch(/^wf-[0-9a-f]{16}$/);
  });

  test('the worker polls as that version, its runs pinned unless a definition says otherwise', () => {
    const version = { deploymentName: 'crm-messaging', buildId: buildIdOf('x') };
    expect(deploymentOptionsOf(version)).toEqual({ useWorkerVersioning: true, version, defaultVersioningBehavior: 'PINNED' });
    expect(versionName(version)).toBe(`crm-messaging:${version.buildId}`);
  });
});

describe('what the worker waits to see registered before it makes its version current', () => {
  // As `temporal worker deployment describe-version` lists a version of npm start's worker.
  test('every kind of poll of every task queue: no activity tasks where only local activities run, Nexus on the base queue', () => {
    expect(polledQueuesOf(taskQueuesOf('crm-messaging'))).toEqual(
      expect.arrayContaining([
        { name: 'crm-messaging', kinds: ['workflow', 'activity', 'nexus'] },
        { name: 'crm-messaging-assign', kinds: ['workflow'] },
        { name: 'crm-messaging-messages', kinds: ['workflow', 'activity'] },
        { name: 'crm-messaging-expiry', kinds: ['workflow'] },
        { name: 'crm-messaging-webhooks', kinds: ['workflow', 'activity'] },
      ]),
    );
    expect(polledQueuesOf(taskQueuesOf('crm-messaging'))).toHaveLength(5);
  });
});
