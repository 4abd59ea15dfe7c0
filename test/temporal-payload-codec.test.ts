import { Client } from '@temporalio/client';
import { METADATA_ENCODING_KEY, defaultPayloadConverter, type Payload } from '@temporalio/common';
import { Registry } from 'prom-client';
import { loadConfig } from '../src/config';
import { dataConverterOf } from '../src/temporal/data-converter';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING, generatePayloadKey, parsePayloadKeys } from '../src/temporal/payload-codec';
import { serveWorkerHttp } from '../src/worker/telemetry';
import { startTestStack, type TestStack } from './support/stack';
import { waitForStatus } from './support/helpers';

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
 * id, a local activity's sequence number and times; its result is kept and checked) and the request-id header, none of which holds personal data (test/privacy-temporal.test.ts).
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

test("the worker's codec endpoint decodes a run for the Temporal UI's origin and for the CLI, and for nobody else", async () => {
  const message = await sentMessage('Meet at noon');
  const payloads = await historyPayloads(message.workflow_id);
  const codec = new AesGcmPayloadCodec(parsePayloadKeys(`${NEW_KEY},${OLD_KEY}`));
  const http = await serveWorkerHttp({ port: 0, metrics: new Registry(), running: () => true, codec: { codec, origins: [UI_ORIGIN], namespace: 'default' } });
  const url = `http://127.0.0.1:${http.port}/codec/decode`;
  const asJson = {
    payloads: payloads.map((p) => ({
      metadata: Object.fromEntries(Object.entries(p.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString('base64')])),
      data: Buffer.from(p.data!).toString('base64'),
    })),
  };
  try {
    const preflight = await fetch(url, { method: 'OPTIONS', headers: { origin: UI_ORIGIN, 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('X-Namespace');

    const fromUi = await fetch(url, { method: 'POST', headers: { origin: UI_ORIGIN, 'content-type': 'application/json', 'x-namespace': 'default' }, body: JSON.stringify(asJson) });
    expect(fromUi.status).toBe(200);
    const body = (await fromUi.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
    expect(body.payloads.map((p) => Buffer.from(p.metadata.encoding, 'base64').toString())).not.toContain(ENCRYPTED_ENCODING);
    expect(body.payloads.map((p) => Buffer.from(p.data, 'base64').toString()).join()).toContain(message._id);

    const fromCli = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(asJson) });
    expect(fromCli.status).toBe(200);

    const elsewhere = await fetch(url, { method: 'POST', headers: { origin: 'http://evil.example', 'content-type': 'application/json' }, body: JSON.stringify(asJson) });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
    const otherNamespace = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-namespace': 'billing' }, body: JSON.stringify(asJson) });
    expect(otherNamespace.status).toBe(403);
    const garbage = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"payloads": 3}' });
    expect(garbage.status).toBe(400);
  } finally {
    await http.stop();
  }
});
