import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { brotliCompress, constants, deflate, gzip, gzipSync } from 'node:zlib';
import { crmProblemOf } from '../../../src/nexus/contract';
import { toNexusError } from '../../../src/nexus/errors';
import { fieldsOf } from '../../../src/nexus/scope';
import { expectProblem } from '../../support/helpers';
import { startTestStack, uniqueName, type ApiResponse, type TestStack } from '../../support/stack';

/*
 * A small request must not cost the API more than its size says: a body of millions of values is refused
 * before anything walks it, and a compressed body never inflates past the route's limit. The API runs
 * in this process, so its memory is this process's and a blocked event loop delays the other tenant's
 * answer measured here.
 */
let stack: TestStack;
let token: string;
let otherTenant: { path: string; url: string; token: string };

/** 100 MB inside a JSON string, compressed to ~100 kB each way. */
const INFLATED = 100 * 2 ** 20;
const bombs: Record<string, Buffer> = {};
/** 2.4 million numbers 30 levels deep: 4.8 MB, under the campaign limit. */
const manyNumbers = nestedNumbers(2_400_000, 30);
let manyNumbersGzipped: Buffer;

beforeAll(async () => {
  // Compressed before the API listens: blocking the event loop for seconds later would let the API close the client's idle connections under it.
  const bomb = Buffer.concat([Buffer.from('{"text_message":"'), Buffer.alloc(INFLATED, 'a'), Buffer.from('"}')]);
  [bombs.gzip, bombs.deflate, bombs.br, manyNumbersGzipped] = await Promise.all([
    promisify(gzip)(bomb, { level: 9 }),
    promisify(deflate)(bomb, { level: 9 }),
    promisify(brotliCompress)(bomb, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }),
    promisify(gzip)(manyNumbers, { level: 9 }),
  ]);
  stack = await startTestStack();
  token = stack.token('bounds-user');
  const neighbourBusiness = uniqueName('neighbour');
  otherTenant = { path: `//ext/v2/${neighbourBusiness}`, url: `${new URL(stack.baseUrl).origin}/ext/v2/${neighbourBusiness}`, token: stack.token('neighbour-user') };
  expect((await stack.api('POST', `${otherTenant.path}/agents`, { token: otherTenant.token, body: { _id: 'a1' } })).status).toBe(201);
  // Warm: the times below are the body's, not those of a first request on a route or of a first query.
  expect((await send('/messages/batch', gzipSync(nestedNumbers(10, 2)), 'gzip')).status).toBe(400);
  expect((await stack.api('GET', `${otherTenant.path}/agents`, { token: otherTenant.token })).status).toBe(200);
});
afterAll(() => stack.stop());

const TOO_MANY_VALUES = 'Request body has more than 100,000 values';

/** `{"message_type":"text","recipients":[[…[1,1,…]…]]}`: `count` numbers in arrays nested `levels` deep (the object is one more level). */
function nestedNumbers(count: number, levels: number): Buffer {
  return Buffer.from(`{"message_type":"text","recipients":${'['.repeat(levels)}${'1,'.repeat(count - 1)}1${']'.repeat(levels)}}`);
}

const send = (path: string, body: Buffer, encoding: string) =>
  stack.api('POST', path, { token, rawBody: body, headers: { 'content-type': 'application/json', 'content-encoding': encoding } });

/** The largest resident set size seen every 20 ms while `work` runs, and once after, above what it was before. */
async function rssGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, growthMb: (peak - before) / 2 ** 20 };
  } finally {
    clearInterval(sample);
  }
}

/**
 * GETs `url` every `everyMs` from a worker thread, `count` times, each without waiting for the one
 * before: a request started while the API's event loop is blocked is answered only when it is free.
 * Resolves once the thread runs; `answers` when every request is answered.
 */
async function neighbourProbe(url: string, token: string, count: number, everyMs: number) {
  const code = `
    const { parentPort, workerData: { url, token, count, everyMs } } = require('node:worker_threads');
    const ask = async () => {
      const start = performance.now();
      try {
        const res = await fetch(url, { headers: { authorization: 'Bearer ' + token } });
        await res.arrayBuffer();
        return { status: res.status, ms: performance.now() - start };
      } catch (error) {
        return { status: String(error.cause ?? error), ms: performance.now() - start };
      }
    };
    const asked = [ask()];
    parentPort.postMessage('started');
    const timer = setInterval(() => {
      asked.push(ask());
      if (asked.length === count) {
        clearInterval(timer);
        Promise.all(asked).then((answers) => parentPort.postMessage(answers));
      }
    }, everyMs);
  `;
  const worker = new Worker(code, { eval: true, workerData: { url, token, count, everyMs } });
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  await next();
  const answers = next().finally(() => worker.terminate()) as Promise<{ status: number | string; ms: number }[]>;
  return { answers };
}

const timed = async <T>(work: () => Promise<T>) => {
  const start = performance.now();
  const result = await work();
  return { result, ms: performance.now() - start };
};

test('4.8 MB of 2.4 million numbers 30 levels deep, sent gzipped (a few kB), is a 400 within 1 s; memory stays flat and another tenant is answered meanwhile', async () => {
  expect(manyNumbers.length).toBeGreaterThan(4.5 * 2 ** 20);
  expect(manyNumbersGzipped.length).toBeLessThan(20 * 1024);

  // The other tenant asks every 100 ms from its own thread, whose clock a blocked API cannot stop.
  const neighbour = await neighbourProbe(`${otherTenant.url}/agents`, otherTenant.token, 15, 100);
  const { result: refused, growthMb } = await rssGrowth(() =>
    timed(() => send('/messages/batch', manyNumbersGzipped, 'gzip').catch((error: Error) => ({ status: `${error.cause ?? error}` }) as unknown as ApiResponse)),
  );
  const answers = await neighbour.answers;

  // All three at once, so that a failure shows each measure.
  const under = (value: number, bound: number) => (value < bound ? `under ${bound}` : Math.round(value));
  expect({ answeredMs: under(refused.ms, 1000), rssGrowthMb: under(growthMb, 200), neighbourSlowestMs: under(Math.max(...answers.map((n) => n.ms)), 1000) }).toEqual({
    answeredMs: 'under 1000',
    rssGrowthMb: 'under 200',
    neighbourSlowestMs: 'under 1000',
  });
  expect(answers.map((n) => n.status)).toEqual(Array(15).fill(200));
  expectProblem(refused.result, 400, TOO_MANY_VALUES);
  expect(refused.result.body.type).toBe('/problems/invalid-request');
});

test('the same body sent plain is refused alike, before it is parsed', async () => {
  const { result, ms } = await timed(() => stack.api('POST', '/messages/batch', { token, rawBody: manyNumbers, headers: { 'content-type': 'application/json' } }));
  expectProblem(result, 400, TOO_MANY_VALUES);
  // 4.8 MB travel and are scanned before the answer; a parse and a walk of them took 10 s (a loaded machine took 1.2 s on this path).
  expect(ms).toBeLessThan(4000);
});

test('100,000 values are read as usual (the route answers for itself); one more is refused', async () => {
  // The object's two members count too: 2 + 99,998 numbers = 100,000.
  const atLimit = await stack.api('POST', '/messages/batch', { token, rawBody: nestedNumbers(99_998, 1).toString(), headers: { 'content-type': 'application/json' } });
  expectProblem(atLimit, 400, 'Invalid recipients: must be an array of 1 to 1000 objects');
  const over = await stack.api('POST', '/messages/batch', { token, rawBody: nestedNumbers(99_999, 1).toString(), headers: { 'content-type': 'application/json' } });
  expectProblem(over, 400, TOO_MANY_VALUES);
});

test('commas, brackets and escaped quotes inside strings are not values', async () => {
  const text = `"${'[1,\\"],'.repeat(60_000)}"`;
  const res = await stack.api('POST', '/messages/batch', { token, rawBody: `{"message_type":"text","text_message":${text},"recipients":[]}`, headers: { 'content-type': 'application/json' } });
  expectProblem(res, 400, 'Invalid recipients: must be an array of 1 to 1000 objects');
});

test('a UTF-16 body is counted as its characters: read as usual within the bound, refused beyond', async () => {
  const utf16 = { 'content-type': 'application/json; charset=utf-16le' };
  const small = await stack.api('POST', '/agents', { token, rawBody: Buffer.from(JSON.stringify({ _id: 'a-utf16', name: 'Zoë' }), 'utf16le'), headers: utf16 });
  expect([small.status, small.body.name]).toEqual([201, 'Zoë']);
  const over = await stack.api('POST', '/messages/batch', { token, rawBody: Buffer.from(nestedNumbers(99_999, 1).toString(), 'utf16le'), headers: utf16 });
  expectProblem(over, 400, TOO_MANY_VALUES);
});

describe('a compressed body inflating past its route\'s limit is a 413, read no further than the limit', () => {
  test.each([
    ['gzip', '/messages/batch', 'Request body is larger than 5 MB'],
    ['deflate', '/messages/batch', 'Request body is larger than 5 MB'],
    ['br', '/messages/batch', 'Request body is larger than 5 MB'],
    ['gzip', '/messages', 'Request body is larger than 100 kB'],
    ['br', '/agents', 'Request body is larger than 100 kB'],
  ])('%s to %s', async (encoding, path, detail) => {
    expect(bombs[encoding].length).toBeLessThan(INFLATED / 100);
    const { result, growthMb } = await rssGrowth(() => timed(() => send(path, bombs[encoding], encoding)));
    expectProblem(result.result as ApiResponse, 413, detail);
    // Memory tells a body read to its limit from one inflated whole; the time only guards against a hang (a loaded machine is slow).
    expect(result.ms).toBeLessThan(10_000);
    expect(growthMb).toBeLessThan(60);
  });
});

test('a Nexus operation input of more than 100,000 values is refused with the same problem, at once', () => {
  let agents: unknown = Array.from({ length: 200_000 }, () => 1);
  for (let i = 0; i < 29; i++) agents = [agents];
  const start = performance.now();
  let answer: unknown;
  try {
    fieldsOf({ business: 'acme', user: 'u1', agents });
  } catch (error) {
    answer = toNexusError(error);
  }
  expect(crmProblemOf(answer)).toMatchObject({ status: 400, detail: TOO_MANY_VALUES });
  // Refused when the count passes the bound, not after a walk of all 200,000 (a guard against a hang, not a timing).
  expect(performance.now() - start).toBeLessThan(5000);
});

test('a Nexus operation input of many values within the bound names its bad string through 30 levels', () => {
  // 99,000 strings 30 levels deep, the last one holding a NUL: the whole input is walked and the path named.
  const strings = Array.from({ length: 99_000 }, () => 'ok');
  strings[98_999] = 'bad\u0000';
  let agents: unknown = strings;
  for (let i = 0; i < 29; i++) agents = [agents];
  let answer: unknown;
  try {
    fieldsOf({ business: 'acme', user: 'u1', agents });
  } catch (error) {
    answer = toNexusError(error);
  }
  expect(crmProblemOf(answer)).toMatchObject({ status: 400, detail: `Invalid agents${'.0'.repeat(29)}.98999: must not contain NUL characters or unpaired surrogates` });
});
