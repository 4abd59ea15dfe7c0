import { expectProblem } from '../../support/helpers';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';

/*
 * A business connects its CRM: PUT/GET/DELETE /integrations/{crm}. Credentials are sealed at rest and
 * never answered back; the answer names the URL to paste into the CRM, under PUBLIC_BASE_URL.
 */

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ env: { PUBLIC_BASE_URL: 'https://crm.example.com' } });
});
afterAll(async () => {
  await stack?.stop();
});

async function userWithAgents(...agents: string[]) {
  const token = stack.token(uniqueName('user'));
  for (const _id of agents) expect((await stack.api('POST', '/agents', { token, body: { _id } })).status).toBe(201);
  return token;
}

const HUBSPOT = { client_secret: 'hs-client-secret-1234', access_token: 'pat-na1-secret-token', app_id: '777' };

test('a connector is set, shown without its credentials, changed, and removed; its credentials are sealed at rest', async () => {
  const token = await userWithAgents('a1', 'a2');
  const put = await stack.api('PUT', '/integrations/hubspot', { token, body: { agents: ['a1'], settings: HUBSPOT, agent_map: { '501': 'a1' } } });
  expect(put.status).toBe(201);
  expect(put.body).toEqual({
    crm: 'hubspot',
    agents: ['a1'],
    policy: null,
    settings: { app_id: '777' },
    secrets_set: ['access_token', 'client_secret'],
    agent_map: { '501': 'a1' },
    follow_crm_owner: false,
    inbound_url: `https://crm.example.com/integrations/hubspot/${stack.business}/webhook`,
    created_at: expect.any(String),
    updated_at: expect.any(String),
  });
  expect(JSON.stringify(put.body)).not.toContain('secret-token');

  const row = await stack.prisma.crmConnector.findUniqueOrThrow({ where: { business_crm: { business: stack.business, crm: 'hubspot' } } });
  expect(row.secrets).toMatch(/^v1:test:/);
  expect(row.secrets).not.toContain('secret-token');
  expect(JSON.stringify(row.settings)).not.toContain('secret');

  // Credentials left out keep their values; the rest is replaced.
  const changed = await stack.api('PUT', '/integrations/hubspot', { token, body: { agents: ['a2'], follow_crm_owner: true } });
  expect(changed.status).toBe(200);
  expect(changed.body).toMatchObject({ agents: ['a2'], secrets_set: ['access_token', 'client_secret'], agent_map: {}, follow_crm_owner: true });
  expect((await stack.api('GET', '/integrations/hubspot', { token })).body).toEqual(changed.body);

  expect((await stack.api('DELETE', '/integrations/hubspot', { token })).status).toBe(204);
  expectProblem(await stack.api('GET', '/integrations/hubspot', { token }), 404, 'No hubspot connector');
  expectProblem(await stack.api('DELETE', '/integrations/hubspot', { token }), 404, 'No hubspot connector');
});

test('bad connectors are refused with the field named, and nothing is stored', async () => {
  const token = await userWithAgents('a1');
  const put = (crm: string, body: unknown) => stack.api('PUT', `/integrations/${crm}`, { token, body });
  expectProblem(await put('hubspot', { policy: 'round-robin', settings: HUBSPOT }), 400, 'Routing policy round-robin not found or not authorized');
  expectProblem(await put('hubspot', { policy: 'round-robin', agents: ['a1'], settings: HUBSPOT }), 400, 'Invalid policy: name the agents to assign or a routing policy, not both');
  expectProblem(await put('hubspot', { settings: HUBSPOT }), 400, 'Missing agents: name the agents to assign (or a routing policy)');
  expectProblem(await put('hubspot', { agents: ['a9'], settings: HUBSPOT }), 400, 'Invalid agents: no agent a9');
  expectProblem(await put('hubspot', { agents: ['a1'], settings: HUBSPOT, agent_map: { '7': 'a9' } }), 400, 'Invalid agents: no agent a9');
  expectProblem(await put('hubspot', { agents: ['a1'], settings: { access_token: 'x' } }), 400, 'Missing settings.client_secret: a hubspot connector needs client_secret, access_token');
  expectProblem(await put('hubspot', { agents: ['a1'], settings: { ...HUBSPOT, password: 'x' } }), 400, 'Invalid settings.password: not a hubspot setting (app_id, client_secret, access_token)');
  expectProblem(
    await put('salesforce', { agents: ['a1'], settings: { organization_id: '00D000000000001AAA', instance_url: 'http://acme.my.salesforce.com', access_token: 't' } }),
    400,
    'Invalid settings.instance_url: must be an https URL on a Salesforce domain',
  );
  expectProblem(await put('zoho', { agents: ['a1'] }), 404, 'Unknown CRM zoho: one of hubspot, salesforce, pipedrive');
  expect(await stack.prisma.crmConnector.count({ where: { business: stack.business, ownerId: { not: '' }, crm: { in: ['hubspot', 'salesforce'] } } })).toBe(0);
});

test('one connector per business and CRM: another user of the business cannot replace, see or remove it', async () => {
  const owner = await userWithAgents('a1');
  const other = await userWithAgents('a1');
  expect((await stack.api('PUT', '/integrations/pipedrive', { token: owner, body: { agents: ['a1'], settings: { api_token: 'pd-token', webhook_user: 'crm', webhook_password: 'pw-12345' } } })).status).toBe(201);
  expectProblem(
    await stack.api('PUT', '/integrations/pipedrive', { token: other, body: { agents: ['a1'], settings: { api_token: 'x', webhook_user: 'y', webhook_password: 'z' } } }),
    409,
    'The business already has a pipedrive connector, set by another user',
  );
  expectProblem(await stack.api('GET', '/integrations/pipedrive', { token: other }), 404, 'No pipedrive connector');
  expectProblem(await stack.api('DELETE', '/integrations/pipedrive', { token: other }), 404, 'No pipedrive connector');
  expect((await stack.api('GET', '/integrations/pipedrive', { token: owner })).body.settings).toEqual({ webhook_user: 'crm' });
  expect((await stack.api('DELETE', '/integrations/pipedrive', { token: owner })).status).toBe(204);
});

test('GET /integrations lists the caller\'s connectors, in CRM order, without credentials; another user\'s is not listed', async () => {
  const token = await userWithAgents('a1');
  expect((await stack.api('GET', '/integrations', { token })).body).toEqual({ integrations: [] });
  const pipedrive = { api_token: 'pd-secret-api-token', webhook_user: 'pd-user', webhook_password: 'pd-secret-password' };
  const business = uniqueName('listing');
  const inBusiness = (method: string, path: string, body?: unknown) => stack.api(method, `//ext/v2/${business}${path}`, { token, body });
  expect((await inBusiness('POST', '/agents', { _id: 'a1' })).status).toBe(201);
  expect((await inBusiness('PUT', '/integrations/pipedrive', { agents: ['a1'], settings: pipedrive })).status).toBe(201);
  const hubspot = await inBusiness('PUT', '/integrations/hubspot', { agents: ['a1'], settings: HUBSPOT });
  expect(hubspot.status).toBe(201);

  const listed = await inBusiness('GET', '/integrations');
  expect(listed.status).toBe(200);
  expect(listed.body.integrations.map((c: { crm: string }) => c.crm)).toEqual(['hubspot', 'pipedrive']);
  expect(listed.body.integrations[0]).toEqual(hubspot.body);
  expect(listed.body.integrations[1]).toMatchObject({ crm: 'pipedrive', settings: { webhook_user: 'pd-user' }, secrets_set: ['api_token', 'webhook_password'] });
  expect(JSON.stringify(listed.body)).not.toMatch(/secret-token|secret-api-token|secret-password|hs-client-secret/);

  const other = stack.token(uniqueName('user'));
  expect((await stack.api('GET', `//ext/v2/${business}/integrations`, { token: other })).body).toEqual({ integrations: [] });
});
