import { PassThrough } from 'node:stream';
import { Registry } from 'prom-client';
import { generatePayloadKey, parsePayloadKeys } from '../../src/config/payload-keys';
import { configureLogging, logger } from '../../src/logger';
import { AesGcmPayloadCodec } from '../../src/temporal-client/payload-codec';
import { serveWorkerHttp } from '../../src/worker/telemetry';

/*
 * The codec's lines in the process's own log: the Temporal UI decodes several payload lists on every page
 * view, so at a terminal a decode is as quiet as a request's line; in JSON lines it stays, as the audit of
 * who read what.
 */
const TOKEN = 'c'.repeat(40);

async function decodesLogged(settings: { LOG_LEVEL: string; LOG_FORMAT: 'json' | 'pretty' }, configured: () => void = () => undefined): Promise<string> {
  const out = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
  let written = '';
  (out as unknown as PassThrough).on('data', (chunk: Buffer) => (written += chunk.toString()));
  configureLogging({ ...settings, NODE_ENV: 'development' }, out);
  configured();
  const codec = new AesGcmPayloadCodec(parsePayloadKeys(generatePayloadKey('k1')));
  const http = await serveWorkerHttp({ port: 0, metrics: new Registry(), running: () => true, codec: { codec, credentials: { token: TOKEN }, origins: [], namespace: 'default' } });
  try {
    const decode = (authorization?: string) =>
      fetch(`http://127.0.0.1:${http.port}/codec/decode`, { method: 'POST', headers: { 'content-type': 'application/json', ...(authorization && { authorization }) }, body: '{"payloads":[]}' });
    expect((await decode(`Bearer ${TOKEN}`)).status).toBe(200);
    expect((await decode()).status).toBe(401);
  } finally {
    await http.stop();
  }
  await new Promise((resolve) => setImmediate(resolve));
  return written;
}

test('at a terminal a decode leaves no line unless LOG_LEVEL=debug; a refused call always does', async () => {
  const quiet = await decodesLogged({ LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' });
  expect(quiet).not.toContain('codec.decode');
  expect(quiet).toMatch(/INFO +codec\.refused/);
  // With tracing on in this process (another file of the same jest worker may have started it), a line carries its trace first.
  expect(await decodesLogged({ LOG_LEVEL: 'debug', LOG_FORMAT: 'pretty' })).toMatch(/DEBUG +codec\.decode (?:trace_id=\w+ span_id=\w+ )?caller="codec token holder"/);
});

test('in JSON lines each decode is an info line naming who read it', async () => {
  // JSON lines go to the process's stdout (fd 1): the logger's calls are what is written there.
  let info: jest.SpyInstance | undefined;
  try {
    await decodesLogged({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, () => (info = jest.spyOn(logger, 'info')));
    expect(info!.mock.calls.map(([line]) => line).filter((line) => (line as { event?: string }).event === 'codec.decode')).toEqual([
      expect.objectContaining({ caller: 'codec token holder', credential: 'bearer-token', payloads: 0 }),
    ]);
  } finally {
    info?.mockRestore();
  }
});
