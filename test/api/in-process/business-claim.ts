import jwt from 'jsonwebtoken';
import { openApiDocument } from '../../../src/api/openapi/document';
import { authConfigOf, loadConfig } from '../../../src/config/index';
import { startTestStack, uniqueName, type ApiResponse, type TestStack } from '../../support/stack';
import { REQUEST_INSTANCE } from '../../support/helpers';

/** JWT_BUSINESS_CLAIM: a token acts only for the businesses its claim names. */

let stack: TestStack;
/** An API on the suite's stack whose tokens are bound to businesses by the claim `org`. */
let bound: TestStack['api'];

beforeAll(async () => {
  stack = await startTestStack();
  ({ api: bound } = await stack.startApi({ auth: authConfigOf(loadConfig({ JWT_SECRET: stack.secret, JWT_BUSINESS_CLAIM: 'org' })) }));
});
afterAll(async () => {
  await stack.stop();
});

const other = () => uniqueName('other');
const withOrg = (org: unknown, user = 'alice') => stack.token(user, { org });

function expectWrongBusiness(res: ApiResponse, detail = 'Token is not valid for this business'): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status: 403,
    body: { type: '/problems/forbidden', title: 'Forbidden', status: 403, detail, instance: REQUEST_INSTANCE },
  });
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
}

describe('with JWT_BUSINESS_CLAIM set', () => {
  test('a token whose claim names the path\'s business acts for it', async () => {
    const token = withOrg(stack.business);
    const created = await bound('POST', '/clients', { token, body: { _id: 'c-claimed', name: 'Ada' } });
    expect(created.status).toBe(201);
    const read = await bound('GET', '/clients/c-claimed', { token });
    expect({ status: read.status, id: read.body._id }).toEqual({ status: 200, id: 'c-claimed' });
    expect((await bound('GET', '/agents', { token })).status).toBe(200);
  });

  test('a token whose claim names another business is a 403, whether the path\'s business holds data or not', async () => {
    const token = withOrg(other());
    await stack.api('POST', '/clients', { token: stack.token('alice'), body: { _id: 'c-existing' } });
    expectWrongBusiness(await bound('GET', '/clients/c-existing', { token }));
    expectWrongBusiness(await bound('GET', '/agents', { token }));
    // A business nobody ever used answers exactly alike: the 403 tells nothing of what exists.
    const unused = await bound('GET', `//ext/v2/${other()}/clients/c-existing`, { token });
    expectWrongBusiness(unused);
  });

  test('a token bound to one business cannot read or write another\'s data', async () => {
    const mine = other();
    const token = withOrg(mine);
    expect((await bound('POST', `//ext/v2/${mine}/clients`, { token, body: { _id: 'c-mine' } })).status).toBe(201);
    expectWrongBusiness(await bound('POST', '/clients', { token, body: { _id: 'c-theirs' } }));
    const stored = await stack.prisma.client.findMany({ where: { business: stack.business, id: 'c-theirs' } });
    expect(stored).toEqual([]);
  });

  test('a token without the claim at all is a 403 that names the claim it lacks', async () => {
    expectWrongBusiness(await bound('GET', '/agents', { token: stack.token('alice') }), 'Token is not valid for this business: it has no "org" claim, which names the businesses a token acts for here (JWT_BUSINESS_CLAIM)');
    expectWrongBusiness(await bound('GET', `//ext/v2/${other()}/agents`, { token: stack.token('alice', { organisation: stack.business }) }), 'Token is not valid for this business: it has no "org" claim, which names the businesses a token acts for here (JWT_BUSINESS_CLAIM)');
  });

  test.each([
    ['an empty string', ''],
    ['a number', 42],
    ['an object', { name: 'x' }],
    ['an empty array', []],
    ['an array of non-strings', [1, null, { org: 'x' }]],
  ])('a token whose claim is %s is refused with the same 403', async (_name, org) => {
    expectWrongBusiness(await bound('GET', '/agents', { token: withOrg(org) }));
  });

  test('an array claim names several businesses: the token acts for each of them and no other', async () => {
    const second = other();
    const token = withOrg([second, stack.business, 7]);
    expect((await bound('GET', '/agents', { token })).status).toBe(200);
    expect((await bound('GET', `//ext/v2/${second}/agents`, { token })).status).toBe(200);
    expectWrongBusiness(await bound('GET', `//ext/v2/${other()}/agents`, { token }));
  });

  test('names are compared exactly, as the path segment is: another case is another business', async () => {
    expectWrongBusiness(await bound('GET', '/agents', { token: withOrg(stack.business.toUpperCase()) }));
    expectWrongBusiness(await bound('GET', '/agents', { token: withOrg(` ${stack.business}`) }));
    expectWrongBusiness(await bound('GET', '/agents', { token: withOrg(`${stack.business}.`) }));
  });

  test('the 403 comes after the token\'s own checks and before the body and the route', async () => {
    const wrong = withOrg(other());
    // A bad token stays a 401 whatever its claim says.
    const forged = jwt.sign({ org: stack.business }, `${stack.secret}-other`, { algorithm: 'HS256', subject: 'alice', expiresIn: '1h' });
    expect((await bound('GET', '/agents', { token: forged })).status).toBe(401);
    expect((await bound('GET', '/agents', { token: stack.token('alice', { org: stack.business }, { expiresIn: -10 }) })).status).toBe(401);
    // Body problems that any route reports first are not reached.
    expectWrongBusiness(await bound('POST', '/clients', { token: wrong, rawBody: '{not json', headers: { 'content-type': 'application/json' } }));
    expectWrongBusiness(await bound('POST', '/clients', { token: wrong, rawBody: 'x', headers: { 'content-type': 'text/plain' } }));
    expectWrongBusiness(await bound('POST', '/clients', { token: wrong, body: { _id: 'x'.repeat(200_000) } }));
    // Nor are the route's own checks: a send without a client would otherwise be a 400.
    expectWrongBusiness(await bound('POST', '/messages', { token: wrong, body: {} }));
  });

  test('requests refused with the 403 do not spend the user\'s rate limit in the business the token names', async () => {
    const auth = authConfigOf(loadConfig({ JWT_SECRET: stack.secret, JWT_BUSINESS_CLAIM: 'org' }));
    const { api } = await stack.startApi({ auth, rateLimitPerMinute: 2 });
    const token = withOrg(stack.business, 'dave');
    for (let i = 0; i < 3; i++) expectWrongBusiness(await api('GET', `//ext/v2/${other()}/agents`, { token }));
    expect((await api('GET', '/agents', { token })).status).toBe(200);
    expect((await api('GET', '/agents', { token })).status).toBe(200);
    expect((await api('GET', '/agents', { token })).status).toBe(429);
  });

  test('every route under the business prefix refuses a token bound to another business', async () => {
    const token = withOrg(other());
    const routes = Object.entries(openApiDocument.paths as Record<string, Record<string, unknown>>)
      .filter(([template]) => template.startsWith('/ext/v2/{businessname}/'))
      .flatMap(([template, item]) =>
        ['get', 'post', 'put', 'patch', 'delete'].filter((method) => method in item).map((method) => ({ method: method.toUpperCase(), template })),
      );
    expect(routes.length).toBeGreaterThan(20);
    const answers = await Promise.all(
      routes.map(async ({ method, template }) => {
        const path = template.replace('{businessname}', stack.business).replace(/\{[^}]+\}/g, 'some-id');
        const res = await bound(method, `/${path}`, { token, ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }) });
        return { route: `${method} ${template}`, status: res.status, detail: res.body?.detail };
      }),
    );
    expect(answers.filter((a) => a.status !== 403 || a.detail !== 'Token is not valid for this business')).toEqual([]);
  });

  test('a token that names the business still sees only its own user\'s data', async () => {
    await bound('POST', '/clients', { token: withOrg(stack.business, 'bob'), body: { _id: 'c-bob' } });
    expect((await bound('GET', '/clients/c-bob', { token: withOrg(stack.business, 'carol') })).status).toBe(404);
  });
});

describe('without JWT_BUSINESS_CLAIM', () => {
  test('a token acts for any business, whatever claims it carries', async () => {
    expect((await stack.api('GET', '/agents', { token: withOrg(other()) })).status).toBe(200);
    expect((await stack.api('GET', '/agents', { token: stack.token('alice') })).status).toBe(200);
  });

  test('JWT_BUSINESS_CLAIM takes any claim name but a registered one; blank is unset', () => {
    const claim = (value: string) => authConfigOf(loadConfig({ JWT_SECRET: stack.secret, JWT_BUSINESS_CLAIM: value })).businessClaim;
    expect([claim('org'), claim(' https://crm.example/org '), claim(''), claim('  ')]).toEqual(['org', 'https://crm.example/org', undefined, undefined]);
    expect(() => claim('sub')).toThrow('Invalid configuration: JWT_BUSINESS_CLAIM: must not be one of the registered claims iss, sub, aud, exp, nbf, iat, jti');
  });
});

test('a namespaced claim, as Auth0 requires for custom claims, binds the token too', async () => {
  const claim = 'https://crm.example/org';
  const { api } = await stack.startApi({ auth: authConfigOf(loadConfig({ JWT_SECRET: stack.secret, JWT_BUSINESS_CLAIM: claim })) });
  expect((await api('GET', '/agents', { token: stack.token('alice', { [claim]: stack.business }) })).status).toBe(200);
  expectWrongBusiness(await api('GET', '/agents', { token: stack.token('alice', { [claim]: other(), org: stack.business }) }));
});
