import { CONNECTORS_NEED_BOUND_TOKENS } from '../../src/api/integrations/routes';
import { authConfigOf, connectorsNeedBoundTokensOf, loadConfig } from '../../src/config/index';
import { expectProblem } from '../support/helpers';
import { startTestStack, uniqueName, type TestApi, type TestStack } from '../support/stack';

/*
 * A connector belongs to its whole business (one per business and CRM). In production its routes need
 * tokens bound to businesses (JWT_BUSINESS_CLAIM): without the claim a stranger could set bigcorp's
 * HubSpot connector first, and bigcorp's own user would get a 409 forever.
 */

let stack: TestStack;
/** Production without JWT_BUSINESS_CLAIM. */
let unbound: TestApi;
/** Production with JWT_BUSINESS_CLAIM=org. */
let bound: TestApi;
const bigcorp = uniqueName('bigcorp');
const HUBSPOT = { client_secret: 'hs-client-secret-1234', access_token: 'pat-na1-secret-token' };

beforeAll(async () => {
  stack = await startTestStack({ business: bigcorp });
  const production = (env: Record<string, string>) => loadConfig({ NODE_ENV: 'production', JWT_SECRET: stack.secret, ...env });
  const withoutClaim = production({});
  const withClaim = production({ JWT_BUSINESS_CLAIM: 'org' });
  unbound = await stack.startApi({ auth: authConfigOf(withoutClaim), connectorsNeedBoundTokens: connectorsNeedBoundTokensOf(withoutClaim) });
  bound = await stack.startApi({ auth: authConfigOf(withClaim), connectorsNeedBoundTokens: connectorsNeedBoundTokensOf(withClaim) });
});
afterAll(async () => {
  await stack?.stop();
});

async function userWithAgent(api: TestApi, token: string): Promise<void> {
  expect((await api.api('POST', '/agents', { token, body: { _id: 'a1' } })).status).toBe(201);
}

test('production needs the claim for connectors; development does not', () => {
  expect(connectorsNeedBoundTokensOf(loadConfig({ NODE_ENV: 'production' }))).toBe(true);
  expect(connectorsNeedBoundTokensOf(loadConfig({ NODE_ENV: 'development' }))).toBe(false);
});

test('in production without JWT_BUSINESS_CLAIM every connector route is a 403 that says how to enable them, and nothing is stored', async () => {
  const stranger = stack.token(uniqueName('stranger'));
  await userWithAgent(unbound, stranger);
  for (const [method, path, body] of [
    ['PUT', '/integrations/hubspot', { agents: ['a1'], settings: HUBSPOT }],
    ['GET', '/integrations/hubspot', undefined],
    ['POST', '/integrations/hubspot/sync', undefined],
    ['DELETE', '/integrations/hubspot', undefined],
    ['GET', '/integrations', undefined],
  ] as const) {
    expectProblem(await unbound.api(method, path, { token: stranger, body }), 403, CONNECTORS_NEED_BOUND_TOKENS);
  }
  expect(CONNECTORS_NEED_BOUND_TOKENS).toContain('set JWT_BUSINESS_CLAIM');
  expect(await stack.prisma.crmConnector.count({ where: { business: bigcorp } })).toBe(0);
  // The business's other routes are as they were.
  expect((await unbound.api('GET', '/agents', { token: stranger })).status).toBe(200);
});

test('with JWT_BUSINESS_CLAIM a token for bigcorp sets its connector; a token for another business is a 403 and takes nothing', async () => {
  const stranger = stack.token(uniqueName('stranger'), { org: uniqueName('elsewhere') });
  const put = await bound.api('PUT', '/integrations/hubspot', { token: stranger, body: { agents: ['a1'], settings: HUBSPOT } });
  expectProblem(put, 403, 'Token is not valid for this business');
  expect(await stack.prisma.crmConnector.count({ where: { business: bigcorp } })).toBe(0);

  const owner = stack.token(uniqueName('owner'), { org: bigcorp });
  await userWithAgent(bound, owner);
  const created = await bound.api('PUT', '/integrations/hubspot', { token: owner, body: { agents: ['a1'], settings: HUBSPOT } });
  expect(created.status).toBe(201);
  expect((await bound.api('GET', '/integrations', { token: owner })).body.integrations.map((c: { crm: string }) => c.crm)).toEqual(['hubspot']);
  expectProblem(await bound.api('GET', '/integrations', { token: stranger }), 403, 'Token is not valid for this business');
  expect((await bound.api('DELETE', '/integrations/hubspot', { token: owner })).status).toBe(204);
});
