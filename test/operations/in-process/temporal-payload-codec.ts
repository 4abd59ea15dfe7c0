import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { promisify } from 'node:util';
import { Client } from '@temporalio/client';
import { METADATA_ENCODING_KEY, defaultPayloadConverter, type Payload } from '@temporalio/common';
import { Registry } from 'prom-client';
import { codecCredentialsOf, codecTokenOf, loadConfig } from '../../../src/config/index';
import { findTemporalCli } from '../../../src/stack/temporal-cli';
import { dataConverterOf } from '../../../src/temporal-client/data-converter';
import { generatePayloadKey, parsePayloadKeys } from '../../../src/config/payload-keys';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING } from '../../../src/temporal-client/payload-codec';
import type { CodecEndpoint } from '../../../src/worker/codec-endpoint';
import { serveWorkerHttp } from '../../../src/worker/telemetry';
import { startTestStack, type TestStack } from '../../support/stack';
import { waitForStatus } from '../../support/helpers';

/* What passes through Temporal is encrypted at rest, and still readable by an operator who holds the key. */

const OLD_KEY = generatePayloadKey('2026-05');
const NEW_KEY = generatePayloadKey('2026-11');
const UI_ORIGIN = 'http://127.0.0.1:8233';

let stack: TestStack;
let raw: Client;

beforeAll(async () => {
  stack = await startTestStack({ payloadKeys: `${NEW_KEY},${OLD_KEY}` });
  raw = new Client({ connection: stack.temporal.connection, namespace: stack.temporal.options.namespace });
});
afterAll(() => stack?.stop());

const encodingOf = (payload: Payload) => Buffer.from(payload.metadata?.[METADATA_ENCODING_KEY] ?? new Uint8Array()).toString();

/**
 * Every payload in a run's history that carries the service's data: inputs, results, details, failures.
 * Left out are what the server must read in clear (search attributes), the SDK's own markers (a patch's
 * id, a local activity's sequence number and times; its result is kept and checked) and the request-id header, none of which holds personal data (test/operations/in-process/privacy-temporal.ts).
 */
async function historyPayloads(workflowId: string): Promise<Payload[]> {
  return (await locatedHistoryPayloads(workflowId)).map(({ payload }) => payload);
}

async function locatedHistoryPayloads(workflowId: string): Promise<{ path: string; payload: Payload }[]> {
  const found: { path: string; payload: Payload }[] = [];
  const walk = (value: unknown, path: string) => {
    if (!value || typeof value !== 'object' || value instanceof Uint8Array) return;
    if (Array.isArray(value)) return value.forEach((item) => walk(item, path));
    const record = value as Record<string, unknown>;
    if (record.metadata && typeof record.metadata === 'object' && 'data' in record) {
      if (!/searchAttributes|header|markerRecordedEventAttributes\.details\.(patch-data|data)\b/.test(path)) found.push({ path, payload: record as Payload });
    } else Object.entries(record).forEach(([key, item]) => walk(item, `${path}.${key}`));
  };
  walk((await raw.workflow.getHandle(workflowId).fetchHistory()).events, '');
  return found;
}

async function sentMessage(text: string) {
  const token = stack.token('codec-user');
  expect((await stack.api('POST', '/clients', { token, body: { _id: `c-codec-${text.length}`, phone: '+14155550199', name: 'Ada Lovelace' } })).status).toBeLessThan(300);
  const accepted = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: `c-codec-${text.length}`, text_message: text } });
  expect(accepted.status).toBe(202);
  await waitForStatus(stack.api, token, accepted.body._id, 'sent');
  return accepted.body as { _id: string; workflow_id: string };
}

test('every payload of a run is AES-GCM ciphertext under the first key, and the service still reads its own runs', async () => {
  const message = await sentMessage('Your code is 4711');
  const located = await locatedHistoryPayloads(message.workflow_id);
  const payloads = located.map(({ payload }) => payload);
  expect(payloads.length).toBeGreaterThan(1);
  for (const { path, payload } of located) {
    expect({ path, encoding: encodingOf(payload) }).toEqual({ path, encoding: ENCRYPTED_ENCODING });
    expect(Buffer.from(payload.metadata!['encryption-key-id']!).toString()).toBe('2026-11');
    expect(Buffer.from(payload.data!).toString('latin1')).not.toContain(message._id);
  }
  // The service's own client decodes: the run's input names the message.
  const decoded = await new AesGcmPayloadCodec(parsePayloadKeys(NEW_KEY)).decode(payloads);
  expect(decoded.map((p) => JSON.stringify(defaultPayloadConverter.fromPayload(p))).join()).toContain(message._id);
});

test('a key that went second still decodes what it encrypted; an unknown key id or a changed byte is refused', async () => {
  const [sealed] = await new AesGcmPayloadCodec(parsePayloadKeys(OLD_KEY)).encode([defaultPayloadConverter.toPayload({ hello: 'world' })]);
  const rotated = new AesGcmPayloadCodec(parsePayloadKeys(`${NEW_KEY},${OLD_KEY}`));
  expect(defaultPayloadConverter.fromPayload((await rotated.decode([sealed]))[0])).toEqual({ hello: 'world' });
  expect(Buffer.from((await rotated.encode([sealed]))[0].metadata!['encryption-key-id']!).toString()).toBe('2026-11');

  await expect(new AesGcmPayloadCodec(parsePayloadKeys(NEW_KEY)).decode([sealed])).rejects.toThrow('Payload encrypted with unknown key id "2026-05"');
  const tampered = { ...sealed, data: Buffer.from(sealed.data!).map((byte, i) => (i === 20 ? byte ^ 1 : byte)) };
  await expect(rotated.decode([tampered])).rejects.toThrow('does not authenticate under key id "2026-05"');
  // Payloads from before encryption was turned on pass through.
  const plain = defaultPayloadConverter.toPayload('before');
  expect(await rotated.decode([plain])).toEqual([plain]);
});

test('a bad TEMPORAL_PAYLOAD_KEYS stops the process at boot with the reason, and production refuses to run without keys', async () => {
  expect(() => loadConfig({ TEMPORAL_PAYLOAD_KEYS: 'k1:c2hvcnQ=' })).toThrow('Invalid configuration: TEMPORAL_PAYLOAD_KEYS key "k1" is not 32 bytes of base64');
  expect(() => loadConfig({ TEMPORAL_PAYLOAD_KEYS: 'no-id-here' })).toThrow('TEMPORAL_PAYLOAD_KEYS entry 1 has no valid key id');
  expect(() => loadConfig({ TEMPORAL_PAYLOAD_KEYS: `${NEW_KEY},${NEW_KEY}` })).toThrow('TEMPORAL_PAYLOAD_KEYS names a key id twice');
  expect(() => dataConverterOf(loadConfig({ NODE_ENV: 'production' }))).toThrow('set TEMPORAL_PAYLOAD_KEYS in production');
  expect(dataConverterOf(loadConfig({ NODE_ENV: 'production', TEMPORAL_PAYLOAD_KEYS: NEW_KEY }))?.payloadCodecs).toHaveLength(1);
});

const CODEC_TOKEN = randomBytes(32).toString('base64url');
const asJson = (payloads: Payload[]) => ({
  payloads: payloads.map((p) => ({
    metadata: Object.fromEntries(Object.entries(p.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString('base64')])),
    data: Buffer.from(p.data!).toString('base64'),
  })),
});
const decodedText = (body: { payloads: { data: string }[] }) => body.payloads.map((p) => Buffer.from(p.data, 'base64').toString()).join();

/** The worker's HTTP port with the codec, as `npm start` and `npm run worker` serve it; `codecLog` gets its log lines. */
async function codecServer(credentials: CodecEndpoint['credentials'] = { token: CODEC_TOKEN }) {
  const codec = new AesGcmPayloadCodec(parsePayloadKeys(`${NEW_KEY},${OLD_KEY}`));
  const logged: { event: string; fields: Record<string, unknown> }[] = [];
  const http = await serveWorkerHttp({
    port: 0,
    metrics: new Registry(),
    running: () => true,
    codec: { codec, credentials, origins: [UI_ORIGIN], namespace: 'default', log: (event, fields) => logged.push({ event, fields }) },
  });
  return { http, logged, url: `http://127.0.0.1:${http.port}/codec` };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

test('an unauthenticated codec call is a 401, whoever sends it: no credential, a wrong one, an API token, or a UI origin alone', async () => {
  const message = await sentMessage('Meet at noon');
  const body = asJson(await historyPayloads(message.workflow_id));
  const apiAudience = 'crm-api';
  const { http, url, logged } = await codecServer({ token: CODEC_TOKEN, jwt: { secret: stack.secret, audience: 'crm-codec' } });
  try {
    const refused = [
      ['no credential', await post(`${url}/decode`, body)],
      ['no credential, encode', await post(`${url}/encode`, body)],
      ['no credential, from the UI origin', await post(`${url}/decode`, body, { origin: UI_ORIGIN, 'x-namespace': 'default' })],
      ['a wrong bearer secret', await post(`${url}/decode`, body, { authorization: `Bearer ${CODEC_TOKEN.slice(1)}x` })],
      ['the secret without Bearer', await post(`${url}/decode`, body, { authorization: CODEC_TOKEN })],
      ['a wrong secret in the path', await post(`${url}/${CODEC_TOKEN.slice(1)}x/decode`, body, { origin: UI_ORIGIN })],
      ['an API token', await post(`${url}/decode`, body, { authorization: `Bearer ${stack.token('u1', { aud: apiAudience })}` })],
      ['an API token with no audience', await post(`${url}/decode`, body, { authorization: `Bearer ${stack.token('u1')}` })],
      ['an expired codec token', await post(`${url}/decode`, body, { authorization: `Bearer ${stack.token('ops', { aud: 'crm-codec' }, { expiresIn: -10 })}` })],
    ] as const;
    for (const [why, res] of refused) {
      expect([why, res.status, res.headers.get('www-authenticate')]).toEqual([why, 401, 'Bearer realm="codec"']);
      expect(await res.text()).not.toContain(message._id);
    }
    expect(logged.filter((line) => line.event === 'codec.decode')).toEqual([]);
    expect(logged.filter((line) => line.event === 'codec.refused')).toHaveLength(refused.length);
  } finally {
    await http.stop();
  }
});

test("the codec decodes for the bearer secret (CLI), the UI's endpoint with the secret in its path, and a JWT made for the codec, and logs who asked", async () => {
  const message = await sentMessage('Meet at one');
  const body = asJson(await historyPayloads(message.workflow_id));
  const { http, url, logged } = await codecServer({ token: CODEC_TOKEN, jwt: { secret: stack.secret, audience: 'crm-codec' } });
  try {
    const preflight = await fetch(`${url}/${CODEC_TOKEN}/decode`, { method: 'OPTIONS', headers: { origin: UI_ORIGIN, 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('X-Namespace');

    const fromUi = await post(`${url}/${CODEC_TOKEN}/decode`, body, { origin: UI_ORIGIN, 'x-namespace': 'default' });
    expect(fromUi.status).toBe(200);
    const uiBody = (await fromUi.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
    expect(uiBody.payloads.map((p) => Buffer.from(p.metadata.encoding, 'base64').toString())).not.toContain(ENCRYPTED_ENCODING);
    expect(decodedText(uiBody)).toContain(message._id);

    const fromCli = await post(`${url}/decode`, body, { authorization: `Bearer ${CODEC_TOKEN}` });
    expect(fromCli.status).toBe(200);
    expect(decodedText((await fromCli.json()) as { payloads: { data: string }[] })).toContain(message._id);
    const withJwt = await post(`${url}/decode`, body, { authorization: `Bearer ${stack.token('ops-ada', { aud: 'crm-codec' })}` });
    expect(withJwt.status).toBe(200);

    expect(logged.filter((line) => line.event === 'codec.decode').map(({ fields }) => [fields.caller, fields.credential, fields.payloads, fields.origin])).toEqual([
      ['codec token holder', 'path-token', body.payloads.length, UI_ORIGIN],
      ['codec token holder', 'bearer-token', body.payloads.length, undefined],
      ['ops-ada', 'jwt', body.payloads.length, undefined],
    ]);

    const auth = { authorization: `Bearer ${CODEC_TOKEN}` };
    const elsewhere = await post(`${url}/decode`, body, { origin: 'http://evil.example', ...auth });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
    expect((await post(`${url}/decode`, body, { 'x-namespace': 'billing', ...auth })).status).toBe(403);
    expect((await post(`${url}/decode`, '{"payloads": 3}', auth)).status).toBe(400);
    expect((await post(`${url}/decode`, 'null', auth)).status).toBe(400);
  } finally {
    await http.stop();
  }
});

test("the codec answers the CLI's empty request ({}) with no payloads, for encode and decode", async () => {
  const { http, url } = await codecServer();
  try {
    for (const operation of ['encode', 'decode']) {
      const res = await post(`${url}/${operation}`, {}, { authorization: `Bearer ${CODEC_TOKEN}` });
      expect([operation, res.status, await res.json()]).toEqual([operation, 200, { payloads: [] }]);
    }
  } finally {
    await http.stop();
  }
});

test('the Temporal CLI decodes a run through the codec with --codec-auth', async () => {
  const message = await sentMessage('Meet at two pm');
  const cli = await findTemporalCli(loadConfig({ PATH: process.env.PATH }));
  expect(cli).toBeDefined();
  const { http, url, logged } = await codecServer();
  const show = (...codec: string[]) =>
    promisify(execFile)(cli!, ['workflow', 'show', '--address', process.env.TEST_TEMPORAL_ADDRESS!, '--namespace', 'default', '-w', message.workflow_id, '-o', 'json', ...codec]);
  try {
    const { stdout } = await show('--codec-endpoint', url, '--codec-auth', `Bearer ${CODEC_TOKEN}`);
    // The CLI prints decoded payloads base64-encoded: the run's input names the message.
    const datas = [...stdout.matchAll(/"data":\s*"([^"]+)"/g)].map(([, data]) => Buffer.from(data, 'base64').toString('latin1'));
    expect(datas.join()).toContain(message._id);
    // Without the credential the codec refuses, and the CLI retries until its command's deadline (10 s
    // unless told): the refusal is what shows, 4 s is ample for the CLI to meet it.
    const before = logged.length;
    await expect(show('--codec-endpoint', url, '--command-timeout', '4s')).rejects.toThrow();
    expect(logged.slice(before).map((line) => line.event)).toContain('codec.refused');
    expect(logged.slice(before).filter((line) => line.event === 'codec.decode')).toEqual([]);
  } finally {
    await http.stop();
  }
});

test("the worker's HTTP port (codec, metrics) listens on loopback unless WORKER_HTTP_HOST says otherwise", async () => {
  expect(loadConfig({}).WORKER_HTTP_HOST).toBe('127.0.0.1');
  const outside = Object.values(networkInterfaces())
    .flat()
    .find((address) => address && address.family === 'IPv4' && !address.internal);
  const { http } = await codecServer();
  try {
    expect((await fetch(`http://127.0.0.1:${http.port}/healthz`)).status).toBe(200);
    // On a machine with another interface, the port is not reachable through it.
    if (outside) await expect(fetch(`http://${outside.address}:${http.port}/healthz`)).rejects.toThrow();
  } finally {
    await http.stop();
  }
});

test('the codec has no default credential in production; a short secret or a shared audience stops the process at boot', async () => {
  const generate = jest.fn(async () => 'generated-development-secret-of-43-characters');
  const production = loadConfig({ NODE_ENV: 'production', TEMPORAL_PAYLOAD_KEYS: NEW_KEY });
  expect(await codecTokenOf(production, generate)).toBeUndefined();
  expect(codecCredentialsOf(production)).toBeUndefined();
  expect(generate).not.toHaveBeenCalled();
  expect(await codecTokenOf(loadConfig({ NODE_ENV: 'production', CODEC_AUTH_TOKEN: CODEC_TOKEN }), generate)).toBe(CODEC_TOKEN);
  expect(await codecTokenOf(loadConfig({}), generate)).toBe('generated-development-secret-of-43-characters');

  expect(() => loadConfig({ CODEC_AUTH_TOKEN: 'short' })).toThrow('CODEC_AUTH_TOKEN must be at least 32 characters');
  const secret = 'x'.repeat(32);
  expect(() => loadConfig({ CODEC_JWT_AUDIENCE: 'crm-codec' })).toThrow('CODEC_JWT_AUDIENCE needs JWT_SECRET or JWT_PUBLIC_KEY');
  expect(() => loadConfig({ JWT_SECRET: secret, CODEC_JWT_AUDIENCE: 'crm-codec' })).toThrow('CODEC_JWT_AUDIENCE needs JWT_AUDIENCE set to another audience');
  expect(() => loadConfig({ JWT_SECRET: secret, JWT_AUDIENCE: 'crm', CODEC_JWT_AUDIENCE: 'crm' })).toThrow('CODEC_JWT_AUDIENCE needs JWT_AUDIENCE set to another audience');
  expect(codecCredentialsOf(loadConfig({ JWT_SECRET: secret, JWT_AUDIENCE: 'crm-api', CODEC_JWT_AUDIENCE: 'crm-codec' }))?.jwt?.audience).toBe('crm-codec');
});
