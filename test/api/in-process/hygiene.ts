import { httpMetrics, serveMetrics } from '../../../src/api/http/metrics';
import { loadConfig } from '../../../src/config/index';
import { memoryLogger, REQUEST_INSTANCE } from '../../support/helpers';
import { apiClient } from '../../support/http';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';

let stack: TestStack;
const { logger, lines } = memoryLogger();
beforeAll(async () => {
  stack = await startTestStack({ logger });
});
afterAll(() => stack.stop());

describe('request ids', () => {
  test('a sane X-Request-Id is echoed and names the problem instance', async () => {
    const res = await stack.api('GET', '/clients/nobody', { token: stack.token('u1'), headers: { 'X-Request-Id': 'ticket-4711.a' } });
    expect(res.headers.get('x-request-id')).toBe('ticket-4711.a');
    expect(res.body).toEqual(expect.objectContaining({ status: 404, instance: 'urn:request:ticket-4711.a' }));
  });

  test('an absent or unsafe X-Request-Id is replaced by a generated one', async () => {
    const generated = await stack.api('GET', '/agents', { token: stack.token('u1') });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await stack.api('GET', '/agents', { headers: { 'X-Request-Id': 'a b<script>' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(unsafe.body.instance).toBe(`urn:request:${unsafe.headers.get('x-request-id')}`);
    expect(unsafe.body.instance).toEqual(REQUEST_INSTANCE);
  });

  test('the request line in the log carries the same id', async () => {
    const res = await stack.api('GET', '/agents', { token: stack.token('u1'), headers: { 'X-Request-Id': 'find-me-123' } });
    expect(res.status).toBe(200);
    expect(lines.filter((l) => l.event === 'http.request' && l.req.id === 'find-me-123')).toHaveLength(1);
  });
});

describe('headers of every answer', () => {
  test('security headers and Cache-Control: no-store, no X-Powered-By', async () => {
    for (const res of [await stack.api('GET', '//healthz'), await stack.api('GET', '/agents', { token: stack.token('u1') }), await stack.api('GET', '/agents')]) {
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });

  test('no CORS headers unless origins are allowed', async () => {
    const res = await stack.api('GET', '/agents', { token: stack.token('u1'), headers: { Origin: 'https://crm.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('CORS_ORIGINS allows the listed origin, with the API headers, and no other', async () => {
    const api = await stack.startApi({ corsOrigins: ['https://crm.example'] });
    // A CORS preflight is the browser's, not an operation of the API.
    const preflight = await api.api('OPTIONS', '/messages', {
      validate: false,
      headers: { Origin: 'https://crm.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type,idempotency-key' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://crm.example');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');
    const other = await api.api('GET', '/agents', { token: stack.token('u1'), headers: { Origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

test('the per-user rate limit answers 429 with Retry-After and RateLimit headers, and leaves other users alone', async () => {
  const api = await stack.startApi({ rateLimitPerMinute: 3 });
  const busy = stack.token(uniqueName('busy'));
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push(await api.api('GET', '/agents', { token: busy }));
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
  expect(answers[0].headers.get('ratelimit-policy')).toContain('q=3');
  expect(answers[3].headers.get('retry-after')).toMatch(/^\d+$/);
  expect(answers[3].body).toEqual(expect.objectContaining({ status: 429, type: '/problems/rate-limited', detail: 'Too many requests: at most 3 a minute per user' }));
  expect((await api.api('GET', '/agents', { token: stack.token(uniqueName('calm')) })).status).toBe(200);
});

test('the rate limit counts a user\'s requests in every business together: another business segment, or its case, does not escape it', async () => {
  const api = await stack.startApi({ rateLimitPerMinute: 3 });
  const origin = new URL(api.baseUrl).origin;
  const busy = stack.token(uniqueName('busy'));
  const acme = uniqueName('Acme');
  const answers = [];
  for (const business of [acme, acme.toUpperCase(), uniqueName('other'), acme.toLowerCase()]) {
    answers.push(await apiClient(origin, business)('GET', '/agents', { token: busy }));
  }
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
  expect(answers[3].body).toEqual(expect.objectContaining({ status: 429, detail: 'Too many requests: at most 3 a minute per user' }));
  expect((await apiClient(origin, acme)('GET', '/agents', { token: stack.token(uniqueName('calm')) })).status).toBe(200);
});

test('production has a rate limit unless told otherwise; elsewhere none unless set', () => {
  expect(loadConfig({ NODE_ENV: 'production' }).RATE_LIMIT_PER_MINUTE).toBe(1200);
  expect(loadConfig({ NODE_ENV: 'production', RATE_LIMIT_PER_MINUTE: '0' }).RATE_LIMIT_PER_MINUTE).toBe(0);
  expect(loadConfig({ NODE_ENV: 'production', RATE_LIMIT_PER_MINUTE: '300' }).RATE_LIMIT_PER_MINUTE).toBe(300);
  expect(loadConfig({}).RATE_LIMIT_PER_MINUTE).toBe(0);
  expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '60' }).RATE_LIMIT_PER_MINUTE).toBe(60);
  expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: '-1' })).toThrow('RATE_LIMIT_PER_MINUTE');
});

test('the metrics port counts requests by route template and status, never by id; the public port answers 404 for /metrics', async () => {
  const metrics = httpMetrics();
  const metricsHttp = await serveMetrics(metrics.registry, 0);
  try {
    const api = await stack.startApi({ metrics });
    const token = stack.token('u1');
    await api.api('GET', '/clients/c-404', { token });
    await api.api('GET', '/agents', { token });
    const onPublicPort = await api.api('GET', '//metrics', { validate: false });
    expect(onPublicPort.status).toBe(404);
    expect(JSON.stringify(onPublicPort.body)).not.toContain('http_requests_total');

    const res = await fetch(`http://127.0.0.1:${metricsHttp.port}/metrics`);
    const body = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(body).toMatch(/http_requests_total\{method="GET",route="\/ext\/v2\/:business\/clients\/:clientId",status="404"\} \d+/);
    expect(body).toMatch(/http_request_duration_seconds_bucket\{le="0.1",method="GET",route="\/ext\/v2\/:business\/agents",status="200"\} \d+/);
    expect(body).not.toContain('c-404');
    expect(body).toContain('process_resident_memory_bytes');
    expect((await fetch(`http://127.0.0.1:${metricsHttp.port}/ext/v2/x/agents`)).status).toBe(404);
  } finally {
    await metricsHttp.stop();
  }
});

test('the metrics port listens on loopback unless API_METRICS_HOST says otherwise', () => {
  const config = loadConfig({});
  expect([config.API_METRICS_HOST, config.API_METRICS_PORT]).toEqual(['127.0.0.1', 9465]);
  expect(loadConfig({ API_METRICS_HOST: '0.0.0.0', API_METRICS_PORT: '9100' })).toMatchObject({ API_METRICS_HOST: '0.0.0.0', API_METRICS_PORT: 9100 });
});

test('logs redact tokens, message texts, phone numbers and names', () => {
  logger.info({ event: 'probe', req: { headers: { authorization: 'Bearer abc.def.ghi' } }, body: { text_message: 'my secret', client_phone: '+14155550123', client_name: 'Ann' } });
  const probe = JSON.stringify(lines.find((l) => l.event === 'probe'));
  for (const secret of ['abc.def.ghi', 'my secret', '+14155550123', 'Ann']) expect(probe).not.toContain(secret);
});

test('every JSON answer ends with a newline, and Content-Length counts it', async () => {
  const token = stack.token(uniqueName('newline'));
  const origin = new URL(stack.baseUrl).origin;
  const answers: [string, RequestInit & { path: string }][] = [
    ['a created resource', { path: `${stack.baseUrl}/agents`, method: 'POST', body: JSON.stringify({ _id: 'nl-agent' }) }],
    ['a list', { path: `${stack.baseUrl}/agents` }],
    ['a 400 problem', { path: `${stack.baseUrl}/clients`, method: 'POST', body: '{"_id": ' }],
    ['a 404 problem', { path: `${stack.baseUrl}/clients/nobody` }],
    ['a 401 problem', { path: `${stack.baseUrl}/agents`, headers: { authorization: 'Bearer nonsense' } }],
    ['a route that does not exist', { path: `${origin}/nowhere` }],
    ['the OpenAPI document', { path: `${origin}/openapi.json` }],
    ['the health check', { path: `${origin}/healthz` }],
    ['the readiness check', { path: `${origin}/readyz` }],
  ];
  for (const [name, { path, ...init }] of answers) {
    const res = await fetch(path, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers as object) } });
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString('utf8');
    expect({ name, json: /json/.test(res.headers.get('content-type') ?? ''), lastCharacter: text.at(-1), length: Number(res.headers.get('content-length')) }).toEqual({
      name,
      json: true,
      lastCharacter: '\n',
      length: bytes.length,
    });
    expect(() => JSON.parse(text)).not.toThrow();
  }
});
