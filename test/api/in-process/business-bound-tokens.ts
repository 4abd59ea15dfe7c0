import { authConfigOf, BUSINESS_CLAIM_REQUIRED, loadConfig } from '../../../src/config/index';
import { expectProblem } from '../../support/helpers';
import { startTestStack, uniqueName, type TestApi, type TestStack } from '../../support/stack';

/*
 * What belongs to a whole business — its numbers and their replies, its unmatched texts, its connectors —
 * is reached only with a token bound to that business. Production refuses to start without
 * JWT_BUSINESS_CLAIM; with it, a token for `attacker` cannot send as `victim`, nor read its texts.
 */

const SECRET = 'a-production-secret-of-at-least-32-characters';
const NOT_THIS_BUSINESS = 'Token is not valid for this business';
const CLAIM_MISSING = `${NOT_THIS_BUSINESS}: it has no "org" claim, which names the businesses a token acts for here (JWT_BUSINESS_CLAIM)`;

test('in production the API does not start without JWT_BUSINESS_CLAIM, and says which setting to add', () => {
  expect(() => authConfigOf(loadConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET }))).toThrow(BUSINESS_CLAIM_REQUIRED);
  expect(BUSINESS_CLAIM_REQUIRED).toContain('set JWT_BUSINESS_CLAIM');
  expect(authConfigOf(loadConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET, JWT_BUSINESS_CLAIM: 'org' })).businessClaim).toBe('org');
  // Development: the path may stand in for the claim (docs/interface.md, "Tokens bound to a business").
  expect(authConfigOf(loadConfig({ NODE_ENV: 'development', JWT_SECRET: SECRET })).businessClaim).toBeUndefined();
});

describe.each([
  ['production', 'production'],
  ['development', 'development'],
])('%s with JWT_BUSINESS_CLAIM=org', (_name, nodeEnv) => {
  let stack: TestStack;
  let api: TestApi;
  const victim = uniqueName('victim');

  beforeAll(async () => {
    stack = await startTestStack({ business: victim });
    api = await stack.startApi({ auth: authConfigOf(loadConfig({ NODE_ENV: nodeEnv, JWT_SECRET: stack.secret, JWT_BUSINESS_CLAIM: 'org' })) });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const attacks = [
    ['creates a client in the victim business', 'POST', '/clients', { _id: 'c-stolen', phone: '+14155550142' }],
    ['sends from the victim business\'s numbers', 'POST', '/messages', { message_type: 'text', client_phone: '+14155550142', text_message: 'hi' }],
    ['reads the victim business\'s unmatched texts', 'GET', '/unmatched-inbound', undefined],
    ['reads the victim business\'s connectors', 'GET', '/integrations', undefined],
  ] as const;

  test.each(attacks)('a token bound to another business that %s is a 403, and nothing is stored', async (_what, method, path, body) => {
    const attacker = stack.token('attacker', { org: uniqueName('attacker') });
    expectProblem(await api.api(method, path, { token: attacker, body }), 403, NOT_THIS_BUSINESS);
    expect(await stack.prisma.client.count({ where: { business: victim } })).toBe(0);
    expect(await stack.prisma.message.count({ where: { business: victim } })).toBe(0);
  });

  test.each(attacks)('a token without the claim that %s is a 403 naming the claim', async (_what, method, path, body) => {
    expectProblem(await api.api(method, path, { token: stack.token('attacker'), body }), 403, CLAIM_MISSING);
    expect(await stack.prisma.client.count({ where: { business: victim } })).toBe(0);
  });

  test('a token bound to the business acts for it', async () => {
    const owner = stack.token('owner', { org: victim });
    expect((await api.api('POST', '/clients', { token: owner, body: { _id: 'c1', phone: '+14155550142' } })).status).toBe(201);
    expect((await api.api('GET', '/unmatched-inbound', { token: owner })).status).toBe(200);
    await stack.prisma.client.deleteMany({ where: { business: victim } });
  });
});
