import { createHmac, generateKeyPairSync } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import jwt from 'jsonwebtoken';
import type { AuthConfig } from '../../../src/auth/bearer-token';
import { authConfigOf, loadConfig } from '../../../src/config/index';
import { startTestStack, uniqueName, type ApiResponse, type TestStack } from '../../support/stack';
import { REQUEST_INSTANCE } from '../../support/helpers';
import { INVALID_BUSINESS } from '../../../src/use-cases/input/validation';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const b64url = (value: object | string) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A request whose path goes to the server exactly as written (node:http resolves no dot segments). */
function rawRequest(method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; contentType: string | undefined; body: any }> {
  const { hostname, port } = new URL(stack.baseUrl);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers = { ...(token && { authorization: `Bearer ${token}` }), ...(payload && { 'content-type': 'application/json' }) };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, contentType: res.headers['content-type'], body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A token assembled by hand, for headers and signatures jsonwebtoken refuses to produce. */
function handMadeToken(header: object, payload: object | string, sign: (input: string) => string = () => ''): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  return `${input}.${sign(input)}`;
}

function expectUnauthorized(res: ApiResponse): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status: 401,
    body: { type: '/problems/unauthorized', title: 'Unauthorized', status: 401, detail: expect.any(String), instance: REQUEST_INSTANCE },
  });
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.headers.get('www-authenticate')).toBe('Bearer');
}

/** GET /agents with `token` is a 401 whose detail is `detail`. */
async function expectUnauthorizedWith(token: string, detail: string): Promise<void> {
  const res = await stack.api('GET', '/agents', { token });
  expectUnauthorized(res);
  expect(res.body.detail).toBe(detail);
}

/** A second API on the suite's database, Temporal and task queue, with its own JWT settings. */
async function startApiWith(auth: AuthConfig) {
  const { api } = await stack.startApi({ auth });
  return (path: string, token?: string): Promise<ApiResponse> => api('GET', path, { token });
}

describe('a request under /ext/v2/{business} is rejected with 401', () => {
  test('without an Authorization header', async () => {
    expectUnauthorized(await stack.api('GET', '/agents'));
  });

  test('with a scheme other than Bearer', async () => {
    expectUnauthorized(await stack.api('GET', '/agents', { headers: { authorization: `Basic ${b64url('user:pass')}` } }));
    expectUnauthorized(await stack.api('GET', '/agents', { headers: { authorization: stack.token('alice') } }));
  });

  test('with an empty bearer token', async () => {
    expectUnauthorized(await stack.api('GET', '/agents', { headers: { authorization: 'Bearer ' } }));
  });

  test.each([
    ['not a JWT at all', 'not-a-jwt'],
    ['only two segments', `${b64url({ alg: 'HS256' })}.${b64url({ sub: 'alice' })}`],
    ['a header that is not JSON', `${b64url('{{{')}.${b64url({ sub: 'alice' })}.c2ln`],
    ['a JWT-typed header over a payload that is not JSON', handMadeToken({ alg: 'HS256', typ: 'JWT' }, 'not json', () => 'c2ln')],
  ])('with a malformed token: %s', async (_name, token) => {
    expectUnauthorized(await stack.api('GET', '/agents', { token }));
  });

  test('with a token signed with another secret', async () => {
    const token = jwt.sign({}, `${stack.secret}-wrong`, { algorithm: 'HS256', subject: 'alice', expiresIn: '1h' });
    expectUnauthorized(await stack.api('GET', '/agents', { token }));
  });

  test('with a token whose payload was altered after signing', async () => {
    const [header, , signature] = stack.token('alice').split('.');
    const token = `${header}.${b64url({ sub: 'mallory', exp: nowSeconds() + 3600 })}.${signature}`;
    expectUnauthorized(await stack.api('GET', '/agents', { token }));
  });

  test.each(['none', 'None', 'NONE'])('with an unsigned token, alg %s', async (alg) => {
    const token = handMadeToken({ alg, typ: 'JWT' }, { sub: 'alice', exp: nowSeconds() + 3600 });
    expectUnauthorized(await stack.api('GET', '/agents', { token }));
  });

  test.each(['HS384', 'HS512'] as const)('with %s, not allow-listed, even when signed with the right secret', async (algorithm) => {
    const token = jwt.sign({}, stack.secret, { algorithm, subject: 'alice', expiresIn: '1h' });
    expectUnauthorized(await stack.api('GET', '/agents', { token }));
  });

  test('with an RS256 token when no public key is configured', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const token = jwt.sign({}, privateKey, { algorithm: 'RS256', subject: 'alice', expiresIn: '1h' });
    expectUnauthorized(await stack.api('GET', '/agents', { token }));
  });

  test('with an expired token', async () => {
    const token = jwt.sign({ exp: nowSeconds() - 60 }, stack.secret, { algorithm: 'HS256', subject: 'alice' });
    await expectUnauthorizedWith(token, 'Token expired');
  });

  test('with a token that is not valid yet (nbf in the future)', async () => {
    const token = stack.token('alice', {}, { notBefore: '1h' });
    expectUnauthorized(await stack.api('GET', '/agents', { token }));
  });

  test('with a token without sub', async () => {
    const token = jwt.sign({}, stack.secret, { algorithm: 'HS256', expiresIn: '1h' });
    await expectUnauthorizedWith(token, 'Token has no subject');
  });

  test('with a token whose sub is empty or not a string', async () => {
    for (const sub of ['', 42]) {
      const token = jwt.sign({ sub }, stack.secret, { algorithm: 'HS256', expiresIn: '1h' });
      expectUnauthorized(await stack.api('GET', '/agents', { token }));
    }
  });

  test('with a sub longer than 200 characters (it becomes part of workflow ids)', async () => {
    await expectUnauthorizedWith(stack.token('u@'.repeat(101)), 'Token subject is longer than 200 characters');
  });

  test.each([
    ['an extension it does not understand', ['exp-ext']],
    ['an empty list', []],
    ['a value that is not a list', 'b64'],
  ])('with a correctly signed token whose crit header names %s (RFC 7515 §4.1.11)', async (_name, crit) => {
    const sign = (input: string) => createHmac('sha256', stack.secret).update(input).digest('base64url');
    const header = { alg: 'HS256', typ: 'JWT', crit, ...(Array.isArray(crit) && crit.length > 0 && { 'exp-ext': true }) };
    const token = handMadeToken(header, { sub: 'alice', exp: nowSeconds() + 3600 }, sign);
    await expectUnauthorizedWith(token, 'Invalid token');
  });

  test('with a token without exp', async () => {
    const token = jwt.sign({}, stack.secret, { algorithm: 'HS256', subject: 'alice' });
    await expectUnauthorizedWith(token, 'Token has no expiry');
  });
});

test('a sub of 200 characters is accepted', async () => {
  expect((await stack.api('GET', '/agents', { token: stack.token('u@'.repeat(100)) })).status).toBe(200);
});

test('a valid HS256 token is accepted, and the scheme name is case-insensitive', async () => {
  const token = stack.token('alice');
  expect((await stack.api('GET', '/agents', { token })).status).toBe(200);
  const lower = await stack.api('GET', '/agents', { headers: { authorization: `bearer ${token}` } });
  expect(lower.status).toBe(200);
});

describe('every route under the prefix requires a token', () => {
  // Every row has three cells: jest takes a test function with more parameters than cells as callback-style.
  const routes: [string, string, unknown][] = [
    ['POST', '/clients/c1/assign-agents', { agents: [{ agent: 'a1' }] }],
    ['GET', '/clients/c1/agents', undefined],
    ['DELETE', '/clients/c1/agents/a1', undefined],
    ['POST', '/clients', { _id: 'c1' }],
    ['GET', '/clients/c1', undefined],
    ['POST', '/agents', { _id: 'a1' }],
    ['GET', '/agents', undefined],
    ['GET', '/no-such-route', undefined],
  ];

  test.each(routes)('%s %s without a token is 401', async (method, path, body) => {
    // The document describes the routes the API has; the made-up one is checked for its 401 only.
    expectUnauthorized(await stack.api(method, path, { body, validate: path !== '/no-such-route' }));
  });

  test.each(routes)('%s %s with a wrongly signed token is 401', async (method, path, body) => {
    const token = jwt.sign({}, 'x'.repeat(64), { algorithm: 'HS256', subject: 'alice', expiresIn: '1h' });
    expectUnauthorized(await stack.api(method, path, { body, token, validate: path !== '/no-such-route' }));
  });

  test('a request with a bad token creates nothing', async () => {
    const id = uniqueName('never');
    const token = jwt.sign({}, 'x'.repeat(64), { algorithm: 'HS256', subject: 'alice', expiresIn: '1h' });
    expectUnauthorized(await stack.api('POST', '/clients', { body: { _id: id }, token }));
    expect(await stack.prisma.client.count({ where: { id } })).toBe(0);
  });
});

describe('business names', () => {
  test.each([
    ['65 characters', 'b'.repeat(65)],
    ['a space', 'a%20b'],
    ['a dollar sign', 'a$b'],
    ['an encoded slash', 'a%2Fb'],
    ['a non-ASCII letter', 'caf%C3%A9'],
  ])('outside [A-Za-z0-9._-]{1,64} are 404, as the contract says: %s', async (_name, business) => {
    for (const token of [stack.token('alice'), undefined]) {
      const res = await rawRequest('GET', `/ext/v2/${business}/agents`, token);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 404,
        body: { type: '/problems/not-found', title: 'Not Found', status: 404, detail: expect.any(String), instance: REQUEST_INSTANCE },
      });
      expect(res.contentType).toMatch(/^application\/problem\+json/);
    }
  });

  test.each([
    ['two dots', '..'],
    ['two encoded dots', '%2e%2e'],
    ['three dots', '...'],
    ['one dot', '.'],
    ['two dots inside', 'acme..corp'],
    ['a leading dot', '.acme'],
    ['a leading dash', '-acme'],
    ['a leading underscore', '_acme'],
  ])('names of the allowed characters shaped like a path step are a 400 before the token is read: %s', async (_name, business) => {
    for (const token of [stack.token('alice'), undefined]) {
      // Sent as written: fetch would resolve `..` and `%2e%2e` away before the server saw them.
      const res = await rawRequest('GET', `/ext/v2/${business}/agents`, token);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 400,
        body: { type: '/problems/invalid-request', title: 'Bad Request', status: 400, detail: INVALID_BUSINESS, instance: REQUEST_INSTANCE },
      });
      expect(res.contentType).toMatch(/^application\/problem\+json/);
    }
  });

  test('a refused name stores nothing', async () => {
    const id = uniqueName('c-dots');
    for (const business of ['..', '%2e%2e', '...']) {
      const res = await rawRequest('POST', `/ext/v2/${business}/clients`, stack.token('alice'), { _id: id });
      expect([business, res.status]).toEqual([business, 400]);
    }
    expect(await stack.prisma.client.count({ where: { id } })).toBe(0);
  });

  test.each([
    ['64 characters of letters, digits, dot, underscore and dash', `A.b_c-9${'x'.repeat(57)}`],
    ['a single letter', 'b'],
    ['a single digit', '7'],
    ['single dots between parts', 'acme.co.uk'],
    ['a trailing dot', 'acme.'],
  ])('are served: %s', async (_name, business) => {
    expect(business.length).toBeLessThanOrEqual(64);
    const res = await stack.api('GET', `//ext/v2/${business}/agents`, { token: stack.token('alice') });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ agents: [] });
  });
});

test('/healthz needs no token', async () => {
  const res = await stack.api('GET', '//healthz');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ status: 'ok' });
});

describe('JWT_ISSUER and JWT_AUDIENCE', () => {
  const secret = 's'.repeat(48);
  const sign = (claims: object) => jwt.sign({ sub: 'alice', ...claims }, secret, { algorithm: 'HS256', expiresIn: '1h' });
  let get: Awaited<ReturnType<typeof startApiWith>>;
  beforeAll(async () => {
    get = await startApiWith({ secret, issuer: 'https://issuer.example', audience: 'crm-api' });
  });

  test('a token with the configured issuer and audience is accepted', async () => {
    const res = await get('/agents', sign({ iss: 'https://issuer.example', aud: 'crm-api' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ agents: [] });
  });

  test('an audience list that contains the configured audience is accepted', async () => {
    expect((await get('/agents', sign({ iss: 'https://issuer.example', aud: ['other', 'crm-api'] }))).status).toBe(200);
  });

  test.each([
    ['another issuer', { iss: 'https://evil.example', aud: 'crm-api' }],
    ['no issuer', { aud: 'crm-api' }],
    ['another audience', { iss: 'https://issuer.example', aud: 'other-api' }],
    ['no audience', { iss: 'https://issuer.example' }],
  ])('a token with %s is 401', async (_name, claims) => {
    expectUnauthorized(await get('/agents', sign(claims)));
  });
});

describe('JWT_MAX_AGE', () => {
  let get: Awaited<ReturnType<typeof startApiWith>>;
  beforeAll(async () => {
    get = await startApiWith(authConfigOf(loadConfig({ JWT_SECRET: stack.secret, JWT_MAX_AGE: '1h' })));
  });
  const sign = (claims: object, options: jwt.SignOptions = {}) => jwt.sign(claims, stack.secret, { algorithm: 'HS256', subject: 'alice', ...options });

  test('a token living at most that long is accepted', async () => {
    expect((await get('/agents', sign({}, { expiresIn: '1h' }))).status).toBe(200);
    expect((await get('/agents', sign({}, { expiresIn: '5m' }))).status).toBe(200);
  });

  test('a token living longer by exp - iat is 401, though without JWT_MAX_AGE it is accepted', async () => {
    const token = sign({}, { expiresIn: 3601 });
    const res = await get('/agents', token);
    expectUnauthorized(res);
    expect(res.body.detail).toBe('Token lives longer than the maximum of 3600 seconds');
    expect((await stack.api('GET', '/agents', { token })).status).toBe(200);
    // Issued a day ago for two days: still valid by exp, but not within the maximum.
    expectUnauthorized(await get('/agents', sign({ iat: nowSeconds() - 86_400, exp: nowSeconds() + 86_400 })));
  });

  test('a token without iat is 401', async () => {
    const res = await get('/agents', sign({}, { expiresIn: '5m', noTimestamp: true }));
    expectUnauthorized(res);
    expect(res.body.detail).toBe('Token has no issue time (iat)');
  });

  test('an iat set in the future does not stretch a token past the maximum', async () => {
    const iat = nowSeconds() + 30 * 86_400;
    const res = await get('/agents', sign({ iat, exp: iat + 600 }));
    expectUnauthorized(res);
    expect(res.body.detail).toBe('Token lives longer than the maximum of 3600 seconds');
  });

  test('a token without exp is still 401', async () => {
    expect((await get('/agents', sign({}))).body.detail).toBe('Token has no expiry');
  });

  test('JWT_MAX_AGE takes seconds or a number with s, m, h or d', () => {
    const maxAge = (value: string) => loadConfig({ JWT_MAX_AGE: value }).jwtMaxAgeSeconds;
    expect([maxAge('3600'), maxAge('90s'), maxAge('15m'), maxAge('12h'), maxAge('7d')]).toEqual([3600, 90, 900, 43_200, 604_800]);
    expect(loadConfig({}).jwtMaxAgeSeconds).toBeUndefined();
    for (const bad of ['0', '-5', '1.5h', '1w', 'PT1H', 'soon', '4000d']) {
      expect(() => loadConfig({ JWT_MAX_AGE: bad })).toThrow('Invalid configuration: JWT_MAX_AGE must be a whole number of seconds, or a number followed by s, m, h or d');
    }
  });
});

describe('public-key tokens (JWT_PUBLIC_KEY)', () => {
  const rsa = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const ec = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const otherRsa = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const hmacSecret = 'h'.repeat(48);
  let rsaApi: Awaited<ReturnType<typeof startApiWith>>;
  let ecApi: Awaited<ReturnType<typeof startApiWith>>;
  let rsaOnlyApi: Awaited<ReturnType<typeof startApiWith>>;

  beforeAll(async () => {
    rsaApi = await startApiWith({ secret: hmacSecret, publicKey: rsa.publicKey });
    ecApi = await startApiWith({ publicKey: ec.publicKey });
    rsaOnlyApi = await startApiWith({ publicKey: rsa.publicKey });
  });

  test('an RS256 token signed with the matching private key is accepted', async () => {
    const token = jwt.sign({}, rsa.privateKey, { algorithm: 'RS256', subject: 'alice', expiresIn: '1h' });
    expect((await rsaApi('/agents', token)).status).toBe(200);
    expect((await rsaOnlyApi('/agents', token)).status).toBe(200);
  });

  test('an ES256 token signed with the matching private key is accepted', async () => {
    const token = jwt.sign({}, ec.privateKey, { algorithm: 'ES256', subject: 'alice', expiresIn: '1h' });
    const res = await ecApi('/agents', token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ agents: [] });
  });

  test('HS256 keeps working next to a public key', async () => {
    const token = jwt.sign({}, hmacSecret, { algorithm: 'HS256', subject: 'alice', expiresIn: '1h' });
    expect((await rsaApi('/agents', token)).status).toBe(200);
  });

  test('an HS256 token when only a public key is configured is 401', async () => {
    const token = jwt.sign({}, hmacSecret, { algorithm: 'HS256', subject: 'alice', expiresIn: '1h' });
    expectUnauthorized(await rsaOnlyApi('/agents', token));
  });

  test('an RS256 token signed with another private key is 401', async () => {
    const token = jwt.sign({}, otherRsa.privateKey, { algorithm: 'RS256', subject: 'alice', expiresIn: '1h' });
    expectUnauthorized(await rsaApi('/agents', token));
  });

  test('an RS256 token to a server holding an EC public key is 401', async () => {
    const token = jwt.sign({}, rsa.privateKey, { algorithm: 'RS256', subject: 'alice', expiresIn: '1h' });
    expectUnauthorized(await ecApi('/agents', token));
  });

  test('an expired RS256 token is 401', async () => {
    const token = jwt.sign({ exp: nowSeconds() - 60 }, rsa.privateKey, { algorithm: 'RS256', subject: 'alice' });
    expectUnauthorized(await rsaApi('/agents', token));
  });

  test('an HS256 token forged with the public key as HMAC secret is 401 (algorithm confusion)', async () => {
    const forge = (publicKey: string) =>
      handMadeToken({ alg: 'HS256', typ: 'JWT' }, { sub: 'alice', exp: nowSeconds() + 3600 }, (input) =>
        createHmac('sha256', publicKey).update(input).digest('base64url'),
      );
    expectUnauthorized(await rsaOnlyApi('/agents', forge(rsa.publicKey)));
    expectUnauthorized(await rsaApi('/agents', forge(rsa.publicKey)));
    expectUnauthorized(await ecApi('/agents', forge(ec.publicKey)));
  });
});
