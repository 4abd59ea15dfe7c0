import { randomBytes } from 'node:crypto';
import { testPort } from '../support/ports';
import { runEntryPoint, type RunningProcess } from '../support/process';
import { uniqueName } from '../support/stack';

/*
 * The simulator is a fake Twilio that anyone can drive through the API's /providers/simulator routes:
 * in production every process refuses it at boot, not only `npm start`.
 */

const REFUSAL = 'Invalid configuration: MESSAGE_PROVIDER=simulator is for development; production sends through a carrier';

/** Everything else a production process needs, so that the simulator is the only thing wrong. */
const productionWithSimulator = () => ({
  NODE_ENV: 'production',
  DATABASE_URL: process.env.TEST_DATABASE_URL!,
  TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
  TEMPORAL_TASK_QUEUE: uniqueName('tq'),
  TEMPORAL_PAYLOAD_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  JWT_SECRET: randomBytes(32).toString('hex'),
  MESSAGE_PROVIDER: 'simulator',
  // What `npm start` hands a process that runs the simulator.
  TWILIO_API_URL: 'http://127.0.0.1:9/',
  TWILIO_ACCOUNT_SID: `AC${randomBytes(16).toString('hex')}`,
  TWILIO_AUTH_TOKEN: randomBytes(16).toString('hex'),
  TWILIO_FROM: '+15005550006',
  PUBLIC_BASE_URL: 'https://sms.example.com',
});

/** Whether the process stopped by itself (and with what) or came up. */
async function outcomeOf(process: RunningProcess): Promise<{ exitCode: number | null } | 'running'> {
  return Promise.race([process.exited.then((exitCode) => ({ exitCode })), process.ready.then(() => 'running' as const)]);
}

test('npm run api with NODE_ENV=production refuses MESSAGE_PROVIDER=simulator at boot, and serves no simulator route', async () => {
  const port = await testPort();
  const metricsPort = await testPort();
  const api = runEntryPoint('src/main/api.ts', { ...productionWithSimulator(), PORT: String(port), API_METRICS_PORT: String(metricsPort) }, '"event":"api.listening"', { ports: [port, metricsPort] });
  try {
    const outcome = await outcomeOf(api);
    const route = await fetch(`http://127.0.0.1:${port}/providers/simulator/status`, { method: 'POST', body: 'MessageSid=SM1&MessageStatus=delivered' }).then(
      (res) => `answered ${res.status}`,
      () => 'not served',
    );
    expect({ outcome, route }).toEqual({ outcome: { exitCode: 1 }, route: 'not served' });
    expect(api.output()).toContain(REFUSAL);
  } finally {
    await api.stop();
  }
}, 120_000);

test('npm run worker with NODE_ENV=production refuses MESSAGE_PROVIDER=simulator at boot', async () => {
  const workerPort = await testPort();
  const worker = runEntryPoint('src/main/worker.ts', { ...productionWithSimulator(), WORKER_HTTP_PORT: String(workerPort) }, '"event":"worker.running"', { ports: [workerPort] });
  try {
    expect(await outcomeOf(worker)).toEqual({ exitCode: 1 });
    expect(worker.output()).toContain(REFUSAL);
  } finally {
    await worker.stop();
  }
}, 120_000);
