import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import jwt from 'jsonwebtoken';
import { lockedNodeVersion } from '../support/locked-node';
import { runStack, stackEnv } from '../support/npm-start';
import { testPort } from '../support/ports';
import { request } from '../support/process';
import { eventually, uniqueName } from '../support/stack';
import { receivedEvents, verified } from '../support/events';
import { startWebhookReceiver } from '../support/webhook-receiver';
import { testDir } from '../support/temp-dir';

/* `npm start` as a user runs it: the whole stack from one command. */

/** An address of this machine other than loopback, which another machine on its network would reach it by. */
const networkAddress = () => Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
const answers = (url: string) => fetch(url, { signal: AbortSignal.timeout(5000) }).then((res) => res.status, (error: Error) => `${error.name}: ${(error.cause as Error | undefined)?.message ?? error.message}`);

test('npm start runs the whole stack, stops cleanly on SIGTERM and resumes on the same data', async () => {
  // As on a fresh clone: this stack installs the Temporal CLI into its data directory itself.
  const { dataDir, env, api } = await stackEnv('crm-start', { installTools: true });
  const ports = env;

  const hooks = await startWebhookReceiver();
  const first = runStack(env);
  let token: string;
  let delayedId: string;
  let webhookSecret: string;
  try {
    await first.ready;
    expect(first.output()).toContain(`http://localhost:${ports.PORT}/ext/v2/{businessname}`);
    expect(first.output()).toContain(`Temporal UI  http://127.0.0.1:${ports.TEMPORAL_UI_PORT}`);
    expect(first.output()).toContain('Nexus        endpoint crm → namespace default, task queue crm-messaging');
    expect((await fetch(`http://127.0.0.1:${ports.PORT}/readyz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ports.TEMPORAL_UI_PORT}/`)).status).toBe(200);
    // The UI decodes the encrypted payloads through the worker's codec endpoint, which npm start printed;
    // the UI can only be given a URL, so its endpoint carries the development codec secret. Without it: 401.
    const uiSettings = (await (await fetch(`http://127.0.0.1:${ports.TEMPORAL_UI_PORT}/api/v1/settings`)).json()) as { Codec: { Endpoint: string } };
    const codecToken = (await readFile(join(dataDir, 'dev-codec-token'), 'utf8')).trim();
    const codecUrl = /^(http:\/\/localhost:\d+\/codec)\//.exec(uiSettings.Codec.Endpoint)?.[1];
    expect(uiSettings.Codec.Endpoint).toBe(`${codecUrl}/${codecToken}`);
    // ...yet no command line carries it (ps shows every user's): the dev server read it from a private file.
    const commandLines = (await promisify(execFile)('ps', ['-eo', 'args', '--no-headers'], { maxBuffer: 16 * 1024 * 1024 })).stdout;
    expect(commandLines).toContain('server start-dev');
    expect(commandLines).not.toContain(codecToken);
    // The API answers on this machine only: not on its network address.
    expect(first.output()).toContain(`http://localhost:${ports.PORT}/ext/v2/{businessname} (this machine only; API_HOST=0.0.0.0 opens it to the network)`);
    const outside = networkAddress();
    expect(outside).toBeDefined();
    expect(await answers(`http://${outside}:${ports.PORT}/readyz`)).toMatch(/ECONNREFUSED/);
    expect(first.output()).toContain(`Payloads     encrypted (AES-256-GCM, key dev-1 in ${join(dataDir, 'dev-payload-keys')}); codec for the UI and CLI at ${codecUrl}`);
    expect(first.output()).toMatch(
      new RegExp(`Codec {8}/\\S+/temporal workflow show --address 127\\.0\\.0\\.1:${ports.TEMPORAL_PORT} --codec-endpoint ${codecUrl} --codec-auth "Bearer \\$\\(cat ${join(dataDir, 'dev-codec-token')}\\)" -w WORKFLOW_ID\n`),
    );
    expect(first.output()).not.toContain(codecToken);
    const codecCall = (url: string, headers: Record<string, string> = {}) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
    expect((await codecCall(`${uiSettings.Codec.Endpoint}/decode`, { origin: `http://127.0.0.1:${ports.TEMPORAL_UI_PORT}` })).status).toBe(200);
    expect((await codecCall(`${codecUrl}/decode`, { authorization: `Bearer ${codecToken}` })).status).toBe(200);
    expect((await codecCall(`${codecUrl}/decode`)).status).toBe(401);
    // Metrics: the API's on their own loopback port, not on the public one.
    const metricsUrl = /Metrics {6}(http:\/\/127\.0\.0\.1:\d+\/metrics) \(API\), http:\/\/127\.0\.0\.1:\d+\/metrics \(worker/.exec(first.output())?.[1];
    expect(metricsUrl).toBeDefined();
    const metrics = await fetch(metricsUrl!);
    expect(metrics.status).toBe(200);
    // The stack npm start spawned runs on the Node package-lock.json pins, whatever Node started npm.
    expect(await metrics.text()).toContain(`nodejs_version_info{version="v${lockedNodeVersion()}"`);
    expect((await fetch(`http://127.0.0.1:${ports.PORT}/metrics`)).status).toBe(404);

    const secret = (await readFile(join(dataDir, 'dev-jwt-secret'), 'utf8')).trim();
    token = jwt.sign({}, secret, { algorithm: 'HS256', subject: 'user-1', expiresIn: '1h' });
    expect((await request(`${api}/clients`, token, 'POST', { _id: 'c1', phone: '+14155550100' })).status).toBe(201);
    expect((await request(`${api}/agents`, token, 'POST', { _id: 'a1' })).status).toBe(201);
    expect((await request(`${api}/clients/c1/assign-agents`, token, 'POST', { agents: [{ agent: 'a1' }] })).status).toBe(200);
    // Webhook secrets are sealed with the data directory's development key, kept 0600 for the next run.
    expect(first.output()).toContain(`Secrets      webhook secrets encrypted at rest (AES-256-GCM, key dev-1 in ${join(dataDir, 'dev-secrets-key')})`);
    expect((await stat(join(dataDir, 'dev-secrets-key'))).mode & 0o777).toBe(0o600);
    const subscribed = await request(`${api}/webhooks`, token, 'POST', { url: hooks.url, events: ['message.sent'] });
    expect(subscribed.status).toBe(201);
    webhookSecret = subscribed.body.secret;

    const sentNow = await fetch(`${api}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'X-Request-Id': 'trace-hello-1' },
      body: JSON.stringify({ message_type: 'text', client: 'c1', text_message: 'Hello' }),
    });
    const now = { status: sentNow.status, body: (await sentNow.json()) as { _id: string; workflow_id: string } };
    expect(now.status).toBe(202);
    await eventually(async () => (await request(`${api}/messages/${now.body._id}`, token)).body.status === 'sent');
    // The Codec line runs as pasted into a shell anywhere, `temporal` on its PATH or not: only the workflow id is filled in.
    const codecCommand = /Codec {8}(.*)\n/.exec(first.output())![1].replace('WORKFLOW_ID', now.body.workflow_id);
    const shown = await promisify(execFile)('bash', ['-c', `${codecCommand} -o json`], { cwd: tmpdir(), env: { PATH: '/usr/bin:/bin', HOME: tmpdir() } });
    const decoded = [...shown.stdout.matchAll(/"data":\s*"([^"]+)"/g)].map(([, data]) => Buffer.from(data, 'base64').toString('latin1'));
    expect(decoded.join()).toContain(now.body._id);
    expect(first.output()).toContain(`"event":"message.delivered","provider":"log","id":"${now.body._id}"`);
    // One request id finds the request line and the delivery its workflow's activity made.
    const traced = first.output().split('\n').filter((line) => line.includes('"requestId":"trace-hello-1"') || line.includes('"id":"trace-hello-1"'));
    const requestLine = traced.find((line) => line.includes('"event":"http.request"'));
    expect(requestLine?.match(/"event":/g)).toHaveLength(1);
    expect(traced.some((line) => line.includes('"event":"message.delivered"'))).toBe(true);

    const delayed = await request(`${api}/messages`, token, 'POST', { message_type: 'text', client: 'c1', text_message: 'Later', delay: '10s' });
    expect(delayed.status).toBe(202);
    delayedId = delayed.body._id;
  } finally {
    expect(await first.stop()).toBe(0);
  }
  expect(first.output()).not.toMatch(/database system is shutting down|Error:/);

  // API_HOST widens it.
  const second = runStack({ ...env, API_HOST: '0.0.0.0' });
  try {
    await second.ready;
    expect(second.output()).toContain(`http://localhost:${ports.PORT}/ext/v2/{businessname} (listening on 0.0.0.0)`);
    expect(await answers(`http://${networkAddress()}:${ports.PORT}/readyz`)).toBe(200);
    expect(second.output()).toContain('Nexus        endpoint crm → namespace default, task queue crm-messaging');
    const listed = await request(`${api}/clients/c1/agents`, token!);
    expect(listed.body.assignments).toEqual([
      expect.objectContaining({ agent: 'a1', status: 'active', dt_until: '2143-06-23T00:00:00.000Z', workflow_id: expect.stringMatching(/^client\/acme\/c1\/[0-9a-f-]{36}$/) }),
    ]);
    await eventually(async () => (await request(`${api}/messages/${delayedId!}`, token!)).body.status === 'sent', 60_000);
    // The restarted worker opens the secret the first run sealed, and signs with it.
    const events = await receivedEvents(hooks, 2, 60_000);
    expect(events.map((event) => verified(webhookSecret!, event).data._id)).toContain(delayedId!);
  } finally {
    expect(await second.stop()).toBe(0);
    await hooks.close();
  }
}, 300_000);

test('npm start uses DATABASE_URL and TEMPORAL_ADDRESS when given, and starts nothing embedded', async () => {
  const dataDir = await testDir('crm-start-external-');
  const port = String(await testPort());
  const stack = runStack(
    {
      DATA_DIR: dataDir,
      PORT: port,
      DATABASE_URL: process.env.TEST_DATABASE_URL!,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
      TEMPORAL_TASK_QUEUE: uniqueName('tq'),
      WORKER_HTTP_PORT: String(await testPort()),
    },
  );
  try {
    await stack.ready;
    expect(stack.output()).toContain(`Temporal UI  (external cluster at ${process.env.TEST_TEMPORAL_ADDRESS}, namespace default)`);
    expect(stack.output()).toContain('PostgreSQL   DATABASE_URL');
    expect(stack.output()).toMatch(/Nexus {8}endpoint crm does not lead to this worker .*temporal operator nexus endpoint create --name crm /);
    expect(existsSync(join(dataDir, 'postgres'))).toBe(false);
    expect(existsSync(join(dataDir, 'temporal.sqlite'))).toBe(false);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
  } finally {
    expect(await stack.stop()).toBe(0);
  }
}, 180_000);
