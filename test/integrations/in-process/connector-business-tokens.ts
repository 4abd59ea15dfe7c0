import { authConfigOf, loadConfig } from '../../../src/config/index';
import { expectProblem } from '../../support/helpers';
import { startTestStack, uniqueName, type TestApi, type TestStack } from '../../support/stack';

/*
 * A connector belongs to its whole business (one per business and CRM). Production binds every token to
 * businesses (JWT_BUSINESS_CLAIM; test/api/in-process/business-bound-tokens.ts): a stranger cannot set bigcorp's
 * HubSpot connector first and leave bigcorp's own user a 409 forever.
 */

let stack: TestStack;
/** Production with JWT_BUSINESS_CLAIM=org. */
let bound: TestApi;
const bigcorp = uniqueName('bigcorp');
const HUBSPOT = { client_secret: 'hs-client-secret-1234', access_token: 'pat-na1-secret-token' };

beforeAll(async () => {
  stack = await startTestStack({ business: bigcorp });
  const production = (env: Record<string, string>) => loadConfig({ NODE_ENV: 'production', JWT_SECRET: stack.secret, ...env });
  bound = await stack.startApi({ auth: authConfigOf(production({ JWT_BUSINESS_CLAIM: 'org' })) });
});
afterAll(async () => {
  await stack?.stop();
});

async function userWithAgent(api: TestApi, token: string): Promise<void> {
  expect((await api.api('POST', '/agents', { token, body: { _id: 'a1' } })).status).toBe(201);
}

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
