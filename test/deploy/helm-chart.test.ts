import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadAll } from 'js-yaml';
import { envSchema, loadConfig } from '../../src/config/index';
import { PROJECT_ROOT } from '../../src/paths';
import { installHelmTools, KUBERNETES_VERSION, type HelmTools } from '../../src/stack/helm-tools';
import { tracingEnv } from '../../src/telemetry/settings';
import { kubernetesValidator, type KubernetesObject } from '../support/kubernetes-schemas';

/*
 * The chart (deploy/helm/crm-messaging) rendered by a real `helm template` for each value set it
 * documents (its ci/ directory), every object checked against the Kubernetes, temporal-worker-controller
 * and KEDA schemas of the versions src/stack/helm-tools.ts pins; no cluster. The global setup (and
 * .ci/run before it) builds Helm and fetches the schemas; here they are found at once.
 */
const CHART = join(PROJECT_ROOT, 'deploy', 'helm', 'crm-messaging');
const VALUE_SETS = readdirSync(join(CHART, 'ci')).filter((name) => name.endsWith('-values.yaml')).sort();
const RELEASE = 'crm-messaging';

interface Container {
  name: string;
  command: string[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }[];
  envFrom?: { secretRef?: { name: string } }[];
  readinessProbe?: { httpGet: { path: string; port: string } };
  livenessProbe?: { httpGet: { path: string; port: string } };
  ports?: { name: string; containerPort: number }[];
}
interface PodSpec {
  containers: Container[];
}

let tools: HelmTools;
let validate: (object: KubernetesObject) => string[];
const rendered = new Map<string, KubernetesObject[]>();

async function helm(args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(tools.helm, args, { cwd: CHART, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

const render = async (valueSet: string, extra: string[] = []) =>
  (loadAll(await helm(['template', RELEASE, CHART, '--namespace', 'crm', '--kube-version', KUBERNETES_VERSION, '-f', join(CHART, 'ci', valueSet), ...extra])) as (KubernetesObject | null)[]).filter(
    (object): object is KubernetesObject => object !== null,
  );

beforeAll(async () => {
  // At once when the global setup built them; otherwise this builds them (minutes) or fails with the reason.
  tools = await installHelmTools(loadConfig().TOOLS_DIR);
  validate = kubernetesValidator(tools.schemas);
  for (const set of VALUE_SETS) rendered.set(set, await render(set));
}, 15 * 60_000);

const objects = (set: string, kind?: string) => rendered.get(set)!.filter((o) => !kind || o.kind === kind);
const one = (set: string, kind: string, component?: string) =>
  objects(set, kind).find((o) => !component || o.metadata.labels?.['app.kubernetes.io/component'] === component)!;
const podOf = (object: KubernetesObject) => (object.spec as { template: { spec: PodSpec } }).template.spec;
const workerPodOf = (set: string) => podOf(one(set, 'WorkerDeployment') ?? one(set, 'Deployment', 'worker'));
const allPods = (set: string) =>
  objects(set)
    .filter((o) => ['Deployment', 'WorkerDeployment', 'Job'].includes(o.kind))
    .map((o) => ({ object: o, pod: podOf(o) }));
/** The variables @temporalio/envconfig reads for loadConfig (src/config/index.ts, temporalProfile). */
const temporalClientVariables = () => [...readFileSync(require.resolve('@temporalio/envconfig/lib/envconfig-toml.js'), 'utf8').matchAll(/'(TEMPORAL_[A-Z_]+[A-Z])'/g)].map(([, name]) => name);
const envOf = (container: Container) => new Map((container.env ?? []).map((e) => [e.name, e]));

test('the chart documents several value sets, each a file in its ci/ directory', () => {
  expect(VALUE_SETS.length).toBeGreaterThanOrEqual(4);
  expect(existsSync(join(CHART, 'values.yaml'))).toBe(true);
});

describe.each(VALUE_SETS)('value set %s', (set) => {
  test('renders, and every object validates against the Kubernetes, controller and KEDA schemas', () => {
    expect(objects(set).length).toBeGreaterThan(0);
    expect(objects(set).flatMap(validate)).toEqual([]);
  });

  test('every process runs a built entry point and gets only variables the configuration reads', () => {
    const known = new Set([...Object.keys(envSchema.shape), ...Object.keys(tracingEnv.shape), ...temporalClientVariables()]);
    for (const { pod } of allPods(set)) {
      for (const container of pod.containers) {
        const script = /^dist\/(main\/[\w-]+)\.js$/.exec(container.command[1])![1];
        expect(existsSync(join(PROJECT_ROOT, 'src', `${script}.ts`))).toBe(true);
        for (const name of envOf(container).keys()) expect({ name, known: known.has(name) }).toEqual({ name, known: true });
      }
    }
  });

  test('keeps no secret: no Secret object, and every secret variable comes from a Secret by reference', () => {
    expect(objects(set, 'Secret')).toEqual([]);
    const secretNames = ['DATABASE_URL', 'JWT_SECRET', 'SECRETS_KEY', 'TEMPORAL_PAYLOAD_KEYS', 'CURSOR_SECRET', 'ADMIN_TOKEN', 'CODEC_AUTH_TOKEN', 'MESSAGE_WEBHOOK_SECRET', 'TEMPORAL_API_KEY'];
    for (const { pod } of allPods(set)) {
      for (const variable of pod.containers.flatMap((c) => c.env ?? []).filter((e) => secretNames.includes(e.name))) {
        expect({ name: variable.name, value: variable.value, fromSecret: Boolean(variable.valueFrom?.secretKeyRef) }).toEqual({ name: variable.name, value: undefined, fromSecret: true });
      }
    }
  });

  test('the worker is probed on its health endpoint, on every interface of its pod, and has a PodDisruptionBudget', () => {
    const [worker] = workerPodOf(set).containers;
    const env = envOf(worker);
    expect(env.get('WORKER_HTTP_HOST')?.value).toBe('0.0.0.0');
    expect(worker.ports).toEqual([{ name: 'http', containerPort: Number(env.get('WORKER_HTTP_PORT')?.value) }]);
    expect(worker.readinessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(worker.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
    const pdb = one(set, 'PodDisruptionBudget', 'worker');
    expect((pdb.spec as { selector: { matchLabels: object } }).selector.matchLabels).toEqual({
      'app.kubernetes.io/name': 'crm-messaging',
      'app.kubernetes.io/instance': RELEASE,
      'app.kubernetes.io/component': 'worker',
    });
  });
});

test('the API: ready on /readyz, alive on /healthz, with a PodDisruptionBudget over its pods', () => {
  const api = one('plain-values.yaml', 'Deployment', 'api');
  const [container] = podOf(api).containers;
  expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
  expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
  expect(container.ports).toContainEqual({ name: 'http', containerPort: Number(envOf(container).get('PORT')?.value) });
  const selector = (one('plain-values.yaml', 'PodDisruptionBudget', 'api').spec as { selector: { matchLabels: object } }).selector.matchLabels;
  expect((api.spec as { selector: { matchLabels: object } }).selector.matchLabels).toEqual(selector);
});

test('the migrations run as a Job before install and upgrade roll the pods, with DATABASE_URL alone', () => {
  const job = one('plain-values.yaml', 'Job', 'migrate');
  expect(job.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
  const [container] = podOf(job).containers;
  expect(container.command).toEqual(['node', 'dist/main/migrate.js', 'deploy']);
  expect([...envOf(container).keys()].sort()).toEqual(['DATABASE_URL', 'NODE_ENV']);
  // A release holding only a new build's worker migrates nothing and serves no API.
  expect(objects('worker-only-values.yaml').map((o) => `${o.kind} ${o.metadata.labels?.['app.kubernetes.io/component'] ?? ''}`).sort()).toEqual([
    'Deployment worker',
    'PodDisruptionBudget worker',
    'Service worker',
  ]);
});

describe('with temporal-worker-controller', () => {
  const set = 'controller-keda-values.yaml';

  test('the worker is a WorkerDeployment whose Connection gives its pods the address and the API key; no plain worker Deployment', () => {
    expect(objects(set, 'Deployment').map((d) => d.metadata.labels?.['app.kubernetes.io/component'])).toEqual(['api']);
    const workerDeployment = one(set, 'WorkerDeployment') as KubernetesObject & { spec: { workerOptions: { connectionRef: { name: string }; temporalNamespace: string } } };
    const connection = one(set, 'Connection') as KubernetesObject & { spec: Record<string, unknown> };
    expect(workerDeployment.spec.workerOptions).toEqual({ connectionRef: { name: connection.metadata.name }, temporalNamespace: 'crm-prod.a1b2c' });
    expect(connection.spec).toEqual({ hostPort: 'crm-prod.a1b2c.tmprl.cloud:7233', apiKeySecretRef: { name: 'temporal-api-key', key: 'api-key' } });
    // The controller appends these to each versioned Deployment's pods; set here too, they would be doubled.
    const env = envOf(workerPodOf(set).containers[0]);
    for (const name of ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_API_KEY', 'TEMPORAL_DEPLOYMENT_NAME', 'TEMPORAL_WORKER_BUILD_ID']) expect({ name, set: env.has(name) }).toEqual({ name, set: false });
    // The worker polls as the version the controller registered and leaves promoting it to the controller.
    expect(env.get('WORKER_SET_CURRENT')?.value).toBe('never');
    // The API is no versioned worker: it keeps its own connection.
    expect(envOf(podOf(one(set, 'Deployment', 'api')).containers[0]).get('TEMPORAL_API_KEY')?.valueFrom?.secretKeyRef).toEqual({ name: 'temporal-api-key', key: 'api-key' });
  });

  // The CRDs' CEL rules (x-kubernetes-validations), which the schema check above does not evaluate.
  test.each(['controller-keda-values.yaml', 'profile-controller-values.yaml'])('%s meets the CRDs’ CEL rules', (valueSet) => {
    const { rollout } = one(valueSet, 'WorkerDeployment').spec as { rollout: { strategy: string; steps?: { pauseDuration: string }[] } };
    if (rollout.strategy === 'Progressive') expect(rollout.steps?.length).toBeGreaterThan(0);
    const seconds = (d: string) => [...d.matchAll(/(\d+)(h|m|s)/g)].reduce((sum, [, n, unit]) => sum + Number(n) * { h: 3600, m: 60, s: 1 }[unit as 'h' | 'm' | 's'], 0);
    for (const step of rollout.steps ?? []) expect(seconds(step.pauseDuration)).toBeGreaterThanOrEqual(30);
    const connection = one(valueSet, 'Connection').spec as Record<string, unknown>;
    expect(Boolean(connection.mutualTLSSecretRef) && Boolean(connection.apiKeySecretRef)).toBe(false);
    expect(one(valueSet, 'WorkerDeployment').metadata.name!.length).toBeLessThanOrEqual(63);
  });

  test('mTLS and a build id: the client certificate comes through the Connection, the profile is mounted, the build id is the one given', () => {
    const valueSet = 'profile-controller-values.yaml';
    const spec = one(valueSet, 'WorkerDeployment').spec as { workerOptions: { unsafeCustomBuildID?: string }; rollout: { strategy: string }; replicas?: number };
    expect(spec.workerOptions.unsafeCustomBuildID).toBe('wf-3f9a2c1d');
    expect(spec.rollout).toEqual({ strategy: 'AllAtOnce' });
    expect((one(valueSet, 'Connection').spec as Record<string, unknown>).mutualTLSSecretRef).toEqual({ name: 'crm-temporal-client' });
    const env = envOf(workerPodOf(valueSet).containers[0]);
    expect([env.get('TEMPORAL_CONFIG_FILE')?.value, env.get('TEMPORAL_PROFILE')?.value, env.has('TEMPORAL_TLS_CLIENT_CERT_PATH')]).toEqual(['/etc/temporal/config/temporal.toml', 'prod', false]);
  });
});

describe('KEDA', () => {
  // The parameters KEDA's Temporal scaler reads (its `keda:"name=…, order=…"` tags), from the KEDA module the schemas come from.
  const scalerParameters = (order: 'triggerMetadata' | 'authParams', fromEnv = false) =>
    [...readFileSync(join(tools.schemas, 'keda', 'temporal_scaler.go'), 'utf8').matchAll(/keda:"name=(\w+),\s*order=([\w;]+)/g)]
      .filter(([, , orders]) => orders.split(';').includes(fromEnv ? 'resolvedEnv' : order))
      .map(([, name]) => (fromEnv ? `${name}FromEnv` : name));
  type Trigger = { type: string; metadata: Record<string, string>; authenticationRef?: { name: string } };
  type ScaledObjectSpec = { scaleTargetRef: Record<string, string>; minReplicaCount: number; triggers: Trigger[] };

  test('without the controller: one ScaledObject on the worker Deployment, counting the task queue’s backlog with the worker’s client certificate', () => {
    const set = 'mtls-keda-values.yaml';
    const spec = one(set, 'ScaledObject').spec as ScaledObjectSpec;
    expect(spec.scaleTargetRef).toEqual({ name: one(set, 'Deployment', 'worker').metadata.name });
    expect(one(set, 'Deployment', 'worker').spec).not.toHaveProperty('replicas');
    const [trigger] = spec.triggers;
    expect(trigger.type).toBe('temporal');
    expect(trigger.metadata).toMatchObject({ endpoint: 'temporal-frontend.temporal.svc.cluster.local:7233', namespace: 'default', taskQueue: 'crm-messaging', targetQueueSize: '20', tlsServerName: 'temporal-frontend' });
    const known = [...scalerParameters('triggerMetadata'), ...scalerParameters('triggerMetadata', true)];
    for (const name of Object.keys(trigger.metadata)) expect({ name, known: known.includes(name) }).toEqual({ name, known: true });
    const auth = one(set, 'TriggerAuthentication') as KubernetesObject & { spec: { secretTargetRef: { parameter: string; name: string; key: string }[] } };
    expect(trigger.authenticationRef).toEqual({ name: auth.metadata.name });
    expect(auth.spec.secretTargetRef).toEqual([
      { parameter: 'cert', name: 'crm-temporal-client', key: 'tls.crt' },
      { parameter: 'key', name: 'crm-temporal-client', key: 'tls.key' },
      { parameter: 'ca', name: 'temporal-ca', key: 'ca.crt' },
    ]);
    for (const { parameter } of auth.spec.secretTargetRef) expect(scalerParameters('authParams')).toContain(parameter);
  });

  test('with the controller: a ScaledObject per build, each counting its own build’s backlog, its target left to the controller', () => {
    const set = 'controller-keda-values.yaml';
    const template = one(set, 'WorkerResourceTemplate').spec as { workerDeploymentRef: { name: string }; template: KubernetesObject & { spec: ScaledObjectSpec } };
    expect(template.workerDeploymentRef).toEqual({ name: one(set, 'WorkerDeployment').metadata.name });
    // The controller's webhook: no name or namespace, scaleTargetRef {} for it to fill; no fixed replicas beside KEDA.
    expect(template.template).not.toHaveProperty('metadata');
    expect(template.template.spec.scaleTargetRef).toEqual({});
    expect(one(set, 'WorkerDeployment').spec).not.toHaveProperty('replicas');
    const [trigger] = template.template.spec.triggers;
    expect(trigger.metadata).toMatchObject({ workerDeploymentNameFromEnv: 'TEMPORAL_DEPLOYMENT_NAME', workerDeploymentBuildIdFromEnv: 'TEMPORAL_WORKER_BUILD_ID', enableTLS: 'true' });
    for (const name of Object.keys(trigger.metadata).filter((n) => n.endsWith('FromEnv'))) expect(scalerParameters('triggerMetadata', true)).toContain(name);
    // Each copy as the controller makes it: named, and aimed at its build's Deployment; then KEDA's schema.
    const copy = { ...template.template, metadata: { name: 'crm-messaging-worker-keda-0a1b2c3d' }, spec: { ...template.template.spec, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'crm-messaging-worker-0a1b2c3d' } } };
    expect(validate(copy)).toEqual([]);
    expect(one(set, 'TriggerAuthentication').spec).toEqual({ secretTargetRef: [{ parameter: 'apiKey', name: 'temporal-api-key', key: 'api-key' }] });
  });
});

describe('the schema check fails on what a cluster would refuse', () => {
  const mutated = <T extends KubernetesObject>(object: T, change: (copy: T) => void): T => {
    const copy = structuredClone(object);
    change(copy);
    return copy;
  };

  test('a misspelt field, a wrong type or a missing required field in a Deployment', () => {
    const api = one('plain-values.yaml', 'Deployment', 'api');
    expect(validate(mutated(api, (d) => Object.assign(podOf(d).containers[0], { readinesProbe: {} })))).toEqual([expect.stringMatching(/additional properties \(readinesProbe\)/)]);
    expect(validate(mutated(api, (d) => Object.assign(d.spec!, { replicas: 'two' })))).toEqual([expect.stringMatching(/\/spec\/replicas must be integer/)]);
    expect(validate(mutated(api, (d) => delete (podOf(d).containers[0] as Partial<Container>).name))).toEqual([expect.stringMatching(/must have required property 'name'/)]);
  });

  test('a wrong field in the controller’s and KEDA’s kinds, an unknown kind, a name the API server refuses', () => {
    const workerDeployment = one('controller-keda-values.yaml', 'WorkerDeployment');
    expect(validate(mutated(workerDeployment, (w) => Object.assign((w.spec as { rollout: object }).rollout, { strategy: 'Gradual' })))).toEqual([expect.stringMatching(/\/spec\/rollout\/strategy must be equal to one of the allowed values/)]);
    expect(validate(mutated(workerDeployment, (w) => Object.assign((w.spec as { sunset: object }).sunset, { drainDelay: '1h' })))).toEqual([expect.stringMatching(/additional properties \(drainDelay\)/)]);
    const scaledObject = one('mtls-keda-values.yaml', 'ScaledObject');
    expect(validate(mutated(scaledObject, (s) => Object.assign(s.spec!, { maxReplicas: 8 })))).toEqual([expect.stringMatching(/additional properties \(maxReplicas\)/)]);
    expect(validate({ ...scaledObject, apiVersion: 'keda.sh/v1beta1' })).toEqual([expect.stringMatching(/no schema for this kind/)]);
    expect(validate(mutated(scaledObject, (s) => Object.assign(s.metadata, { name: 'Worker_Scaler' })))).toEqual([expect.stringMatching(/not a DNS label/)]);
  });
});

test('rendering without a required value fails and names it', async () => {
  await expect(render('plain-values.yaml', ['--set', 'image.tag='])).rejects.toThrow(/image.tag is required/);
  await expect(render('plain-values.yaml', ['--set', 'secrets.app='])).rejects.toThrow(/secrets.app is required/);
  await expect(render('plain-values.yaml', ['--set', 'api.jwtBusinessClaim='])).rejects.toThrow(/api.jwtBusinessClaim is required/);
  await expect(render('mtls-keda-values.yaml', ['--set', 'temporal.apiKey.secret=key'])).rejects.toThrow(/temporal.apiKey and temporal.mtls: choose one/);
});

test('helm lint --strict accepts the chart with each value set', async () => {
  for (const set of VALUE_SETS) await expect(helm(['lint', '--strict', CHART, '-f', join(CHART, 'ci', set)])).resolves.toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
});
