import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { envSchema } from '../src/config';
import { PROJECT_ROOT } from '../src/paths';

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

test('every variable compose hands the service is one its configuration reads', () => {
  const known = new Set(Object.keys(envSchema.shape));
  for (const [, service] of ownServices) {
    for (const name of Object.keys(service.environment ?? {})) expect({ name, known: known.has(name) }).toEqual({ name, known: true });
  }
});

test('compose takes its secrets from the environment and keeps none itself', () => {
  const text = readFileSync(join(PROJECT_ROOT, 'compose.yaml'), 'utf8');
  expect(text).toMatch(/JWT_SECRET: \$\{JWT_SECRET:\?/);
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
