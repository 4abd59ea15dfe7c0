import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import createClient from 'openapi-fetch';
import { busyRetryingFetch, retryAfterSeconds, type BusyCount } from '../../bench/busy-retry';
import type { paths } from '../../src/generated/openapi';

/*
 * The benchmarks' client against a real HTTP server that answers 503 with Retry-After, as the API's
 * backpressure does, a few times before it accepts: the benchmark waits each out, sends the same
 * request again, counts the 503s, and does not stop.
 */
let server: Server;
let baseUrl: string;
let busyAnswers: string[];
const received: { method: string; url: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, body });
      const retryAfter = busyAnswers.shift();
      if (retryAfter !== undefined) {
        res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': retryAfter });
        res.end(JSON.stringify({ status: 503, detail: `The service is busy; try again in ${retryAfter} s` }));
      } else {
        res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ _id: 'm-1' }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  received.length = 0;
});

test('a 503 is waited out for its Retry-After, sent again with the same body, and counted', async () => {
  busyAnswers = ['1', '2'];
  const count: BusyCount = { answered503: 0 };
  const waits: number[] = [];
  const api = createClient<paths>({ baseUrl, fetch: busyRetryingFetch(count, { sleep: async (ms) => waits.push(ms) }) });
  const body = { message_type: 'text' as const, client: 'c1', text_message: 'Hello', delay: '1h' };
  const { response, data } = await api.POST('/ext/v2/{businessname}/messages', { params: { path: { businessname: 'bench' } }, body });

  expect(response.status).toBe(202);
  expect(data).toEqual({ _id: 'm-1' });
  expect(count.answered503).toBe(2);
  expect(waits).toEqual([1000, 2000]);
  expect(received).toHaveLength(3);
  for (const request of received) expect(request).toEqual({ method: 'POST', url: '/ext/v2/bench/messages', body: JSON.stringify(body) });
});

test('after its last try the client hands the 503 to the caller instead of waiting forever', async () => {
  busyAnswers = ['1', '1', '1', '1'];
  const count: BusyCount = { answered503: 0 };
  const api = createClient<paths>({ baseUrl, fetch: busyRetryingFetch(count, { maxRetries: 2, sleep: async () => undefined }) });
  const { response } = await api.GET('/ext/v2/{businessname}/clients/{_id}', { params: { path: { businessname: 'bench', _id: 'c1' } } });
  expect(response.status).toBe(503);
  expect(count.answered503).toBe(3);
  expect(received).toHaveLength(3);
  busyAnswers = [];
});

test('Retry-After in seconds or as an HTTP date; 1 s when absent or unreadable; never more than 30 s', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  expect(retryAfterSeconds('3', now)).toBe(3);
  expect(retryAfterSeconds('Mon, 23 Nov 2026 12:00:05 GMT', now)).toBe(5);
  expect(retryAfterSeconds(null, now)).toBe(1);
  expect(retryAfterSeconds('soon', now)).toBe(1);
  expect(retryAfterSeconds('3600', now)).toBe(30);
});
