import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { testPort } from '../support/ports';
import { request, runEntryPoint } from '../support/process';
import { eventually, uniqueName } from '../support/stack';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { webhookSignature } from '../../src/activities/providers/webhook';

test('npm run api and npm run worker, as separate processes, serve assignments and messages through the webhook provider', async () => {
  const receiver: WebhookReceiver = await startWebhookReceiver();
  const webhookSecret = randomBytes(16).toString('hex');
  const secret = randomBytes(32).toString('hex');
  const port = await testPort();
  const workerPort = await testPort();
  const shared = {
    DATABASE_URL: process.env.TEST_DATABASE_URL!,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
    TEMPORAL_TASK_QUEUE: uniqueName('tq'),
  };
  const worker = runEntryPoint(
    'src/main/worker.ts',
    { ...shared, MESSAGE_PROVIDER: 'webhook', MESSAGE_WEBHOOK_URL: receiver.url, MESSAGE_WEBHOOK_SECRET: webhookSecret, WORKER_HTTP_PORT: String(workerPort) },
    '"event":"worker.running"',
    { ports: [workerPort] },
  );
  const metricsPort = await testPort();
  const api = runEntryPoint('src/main/api.ts', { ...shared, JWT_SECRET: secret, PORT: String(port), API_METRICS_PORT: String(metricsPort) }, '"event":"api.listening"', { ports: [port, metricsPort] });
  try {
    await Promise.all([worker.ready, api.ready]);
    const base = `http://127.0.0.1:${port}/ext/v2/${uniqueName('biz')}`;
    const token = jwt.sign({}, secret, { algorithm: 'HS256', subject: 'user-1', expiresIn: '1h' });
    expect((await request(`${base}/clients`, token, 'POST', { _id: 'c1', phone: '+14155550100' })).status).toBe(201);
    expect((await request(`${base}/agents`, token, 'POST', { _id: 'a1' })).status).toBe(201);
    const assigned = await request(`${base}/clients/c1/assign-agents`, token, 'POST', { agents: [{ agent: 'a1' }] });
    expect(assigned.status).toBe(200);
    expect(assigned.body.assignments[0]).toMatchObject({ agent: 'a1', status: 'active' });

    const sent = await request(`${base}/messages`, token, 'POST', { message_type: 'text', client: 'c1', text_message: 'Hi' });
    expect(sent.status).toBe(202);
    await eventually(async () => (await request(`${base}/messages/${sent.body._id}`, token)).body.status === 'sent');
    const [delivery] = receiver.deliveriesFor(sent.body._id);
    expect(delivery.body).toMatchObject({ id: sent.body._id, client: 'c1', to: '+14155550100', text: 'Hi' });
    expect(delivery.headers['idempotency-key']).toBe(sent.body._id);
    const timestamp = Number(/t=(\d+)/.exec(String(delivery.headers['x-webhook-signature']))![1]);
    expect(delivery.headers['x-webhook-signature']).toBe(webhookSignature(webhookSecret, timestamp, delivery.rawBody));

    const health = await fetch(`http://127.0.0.1:${workerPort}/healthz`);
    expect({ status: health.status, body: await health.json() }).toEqual({ status: 200, body: { status: 'ok' } });
    const workerMetrics = await (await fetch(`http://127.0.0.1:${workerPort}/metrics`)).text();
    expect(workerMetrics).toMatch(/crm_messages\{status="sent"\} [1-9]/);
    expect(workerMetrics).toMatch(/crm_active_assignments [1-9]/);
    expect(workerMetrics).toMatch(/crm_message_delivery_lateness_seconds_count [1-9]/);
    // The SDK's own metrics, from the runtime's Prometheus exporter.
    expect(workerMetrics).toMatch(/temporal_(workflow|activity)_\w+/);
    // The API's metrics are on their own port; its public one does not serve them.
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    const apiMetrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(apiMetrics).toMatch(/http_requests_total\{method="POST",route="\/ext\/v2\/:business\/messages",status="202"\} 1/);
  } finally {
    await receiver.close();
    expect(await api.stop()).toBe(0);
    expect(await worker.stop()).toBe(0);
  }
}, 180_000);
