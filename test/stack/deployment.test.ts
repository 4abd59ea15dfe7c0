import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { envSchema } from '../../src/config/index';
import { tracingEnv } from '../../src/telemetry/settings';
import { DYNAMIC_CONFIG_PATH, SERVER_ROLE } from '../../src/stack/temporal-server-engine';
import { TEMPORAL_SERVER_VERSION } from '../../src/stack/temporal-server-install';
import { TEMPORAL_UI_VERSION } from '../../src/stack/temporal-ui-server';
import { PROJECT_ROOT } from '../../src/paths';
import { SEARCH_ATTRIBUTE_KEYS } from '../../src/starters/search-attributes';

/*
 * No Docker engine runs on these machines, so the deployment files are checked as far as that allows:
 * compose's build targets exist in the Dockerfile, each target runs an entry point the build produces,
 * and every variable compose hands the service is one the service reads.
 */
const dockerfile = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
const compose = load(readFileSync(join(PROJECT_ROOT, 'compose.yaml'), 'utf8')) as {
  services: Record<string, { build?: { target: string }; environment?: Record<string, string>; ports?: string[] }>;
};

function stages(): Map<string, string[]> {
  const result = new Map<string, string[]>();
  let current = '';
  for (const line of dockerfile.split('\n')) {
    const from = /^FROM \S+ AS (\S+)/i.exec(line);
    if (from) result.set((current = from[1]), []);
    else if (current) result.get(current)!.push(line);
  }
  return result;
}

const ownServices = Object.entries(compose.services).filter(([, service]) => service.build);

test('every service compose builds names a Dockerfile target, and each target starts a built entry point', () => {
  expect(ownServices.map(([name]) => name).sort()).toEqual(['api', 'migrate', 'worker']);
  for (const [, service] of ownServices) {
    const stage = stages().get(service.build!.target);
    expect(stage).toBeDefined();
    const cmd = stage!.find((line) => line.startsWith('CMD '))!;
    const script = /"dist\/([^"]+)\.js"/.exec(cmd)![1];
    expect(existsSync(join(PROJECT_ROOT, 'src', `${script}.ts`))).toBe(true);
  }
});

test('every variable compose hands the service is one its configuration (or its tracing) reads', () => {
  const known = new Set([...Object.keys(envSchema.shape), ...Object.keys(tracingEnv.shape)]);
  for (const [, service] of ownServices) {
    for (const name of Object.keys(service.environment ?? {})) expect({ name, known: known.has(name) }).toEqual({ name, known: true });
  }
});

test('compose takes its secrets from the environment and keeps none itself', () => {
  const text = readFileSync(join(PROJECT_ROOT, 'compose.yaml'), 'utf8');
  expect(text).toMatch(/JWT_SECRET: \$\{JWT_SECRET:\?/);
  expect(text).toMatch(/JWT_BUSINESS_CLAIM: \$\{JWT_BUSINESS_CLAIM:\?/);
  expect(text).toMatch(/POSTGRES_PASSWORD: \$\{POSTGRES_PASSWORD:\?/);
  expect(text).toMatch(/CODEC_AUTH_TOKEN: \$\{CODEC_AUTH_TOKEN:\?/);
});

test('compose publishes only the API on every interface; the UI, the codec and the metrics on loopback', () => {
  const published = Object.entries(compose.services).flatMap(([name, service]) => (service.ports ?? []).map((port) => `${name} ${port}`));
  expect(published.sort()).toEqual(['api 127.0.0.1:9465:9465', 'api 3000:3000', 'temporal-ui 127.0.0.1:8233:8080', 'worker 127.0.0.1:9464:9464']);
  // Inside its container each process listens on every interface, or the published port would lead nowhere.
  expect(compose.services.worker.environment).toMatchObject({ WORKER_HTTP_HOST: '0.0.0.0' });
  expect(compose.services.api.environment).toMatchObject({ API_METRICS_HOST: '0.0.0.0', API_METRICS_PORT: '9465' });
});

describe('Temporal in compose is the server engine’s shape', () => {
  const services = compose.services as Record<string, { image?: string; environment?: Record<string, string>; volumes?: string[]; command?: string[] }>;
  const imagesOf = (name: string) => Object.values(services).filter((s) => s.image?.startsWith(`temporalio/${name}:`)).map((s) => s.image);

  test('the official server image at the release the local engine builds, set up by admin-tools of the same release; no auto-setup', () => {
    const text = readFileSync(join(PROJECT_ROOT, 'compose.yaml'), 'utf8');
    expect(text).not.toMatch(/auto-setup/);
    expect(imagesOf('server')).toEqual([`temporalio/server:${TEMPORAL_SERVER_VERSION}`]);
    expect(imagesOf('admin-tools').length).toBeGreaterThanOrEqual(1);
    expect(new Set(imagesOf('admin-tools'))).toEqual(new Set([`temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`]));
    expect(services['temporal-schema'].command!.join(' ')).toMatch(/update-schema --schema-name postgresql\/v12\//);
  });

  test('the UI image is the release npm start builds for the server engine', () => {
    expect(imagesOf('ui')).toEqual([`temporalio/ui:${TEMPORAL_UI_VERSION}`]);
  });

  test('the server reads the same dynamic configuration file as the local server engine', () => {
    const temporal = services.temporal;
    const mount = temporal.volumes!.map((v) => v.split(':')).find(([, target]) => target === temporal.environment!.DYNAMIC_CONFIG_FILE_PATH);
    expect(mount).toBeDefined();
    expect(join(PROJECT_ROOT, mount![0])).toBe(DYNAMIC_CONFIG_PATH);
    expect(existsSync(DYNAMIC_CONFIG_PATH)).toBe(true);
  });

  test('Temporal uses a database role of its own, never the service’s', () => {
    const serviceUser = new URL(services.api.environment!.DATABASE_URL.replace(/\$\{[^}]+\}/g, 'x')).username;
    expect(services.temporal.environment!.POSTGRES_USER).toBe(SERVER_ROLE);
    expect(SERVER_ROLE).not.toBe(serviceUser);
    expect(services['temporal-database'].environment!.TEMPORAL_DB_PASSWORD).toMatch(/^\$\{TEMPORAL_DB_PASSWORD:\?/);
  });

  test('the setup step registers every search attribute the workflows use, and the Nexus endpoint', () => {
    const setup = services['temporal-setup'].command!.join(' ');
    const specs = /for spec in ([^;]+); do/.exec(setup)![1].trim().split(/\s+/);
    expect(specs.sort()).toEqual(SEARCH_ATTRIBUTE_KEYS.map((key) => `${key.name}:${({ DATETIME: 'Datetime', KEYWORD: 'Keyword', KEYWORD_LIST: 'KeywordList' } as Record<string, string>)[key.type]}`).sort());
    const config = envSchema.parse({});
    expect(setup).toContain(`nexus endpoint create --name ${config.NEXUS_ENDPOINT} --target-namespace default --target-task-queue ${config.TEMPORAL_TASK_QUEUE}`);
  });
});
