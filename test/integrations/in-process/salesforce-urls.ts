import { loadConfig } from '../../../src/config/index';
import { expectProblem } from '../../support/helpers';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';

/*
 * A Salesforce connector's instance_url and login_url are where the service sends the connector's
 * token: https on Salesforce's own domains, or on one SALESFORCE_ALLOWED_DOMAINS adds; nothing else,
 * however an address inside our network is spelled.
 */

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ env: { SALESFORCE_ALLOWED_DOMAINS: 'sfcrm.example.gov, *.partner-cloud.example' } });
});
afterAll(async () => {
  await stack?.stop();
});

const BASE = { organization_id: '00D000000000001AAA', instance_url: 'https://acme.my.salesforce.com', access_token: 't' };

async function putSalesforce(settings: Record<string, string>, token = stack.token(uniqueName('user'))) {
  await stack.api('POST', '/agents', { token, body: { _id: 'a1' } });
  return stack.api('PUT', '/integrations/salesforce', { token, body: { agents: ['a1'], settings: { ...BASE, ...settings } } });
}

const REFUSED = [
  'https://127.0.0.1:18443',
  'https://169.254.169.254',
  'https://[::1]',
  'https://2130706433',
  'https://0x7f.1',
  'https://localhost',
  'https://metadata.google.internal',
  'http://acme.my.salesforce.com',
  'https://salesforce.com.attacker.example',
  'https://acme.my.salesforce.com@127.0.0.1',
  'https://user:pass@acme.my.salesforce.com',
  'https://notsalesforce.com',
  'https://salesforce.com',
  'not a url',
];

test.each(REFUSED)('instance_url and login_url %s are a 400, and nothing is stored', async (url) => {
  const token = stack.token(uniqueName('user'));
  expectProblem(await putSalesforce({ instance_url: url }, token), 400, 'Invalid settings.instance_url: must be an https URL on a Salesforce domain');
  expectProblem(await putSalesforce({ login_url: url }, token), 400, 'Invalid settings.login_url: must be an https URL on a Salesforce domain');
  expect((await stack.api('GET', '/integrations/salesforce', { token })).status).toBe(404);
});

test.each([
  ['an org instance', { instance_url: 'https://acme.my.salesforce.com' }],
  ['a sandbox login', { instance_url: 'https://acme--dev.sandbox.my.salesforce.com', login_url: 'https://test.salesforce.com' }],
  ['a force.com site', { instance_url: 'https://acme.lightning.force.com' }],
  ['salesforce-setup.com', { instance_url: 'https://acme.my.salesforce-setup.com' }],
  ['cloudforce.com', { instance_url: 'https://acme.cloudforce.com' }],
  ['database.com', { instance_url: 'https://login.database.com' }],
  ['upper case', { instance_url: 'https://ACME.My.Salesforce.com/' }],
  ['a domain SALESFORCE_ALLOWED_DOMAINS adds', { instance_url: 'https://acme.sfcrm.example.gov', login_url: 'https://login.partner-cloud.example' }],
])('%s is accepted', async (_what, settings) => {
  // One user's connector, set again with each (the business has one Salesforce connector).
  expect([200, 201]).toContain((await putSalesforce(settings, stack.token('salesforce-urls-owner'))).status);
});

test('SALESFORCE_ALLOWED_DOMAINS takes domain names only', () => {
  expect(loadConfig({ SALESFORCE_ALLOWED_DOMAINS: 'sfcrm.example.gov, *.partner-cloud.example' }).SALESFORCE_ALLOWED_DOMAINS).toEqual(['sfcrm.example.gov', 'partner-cloud.example']);
  expect(loadConfig({}).SALESFORCE_ALLOWED_DOMAINS).toEqual([]);
  for (const bad of ['127.0.0.1', 'localhost', 'com', 'exa mple.com', 'https://x.example.com']) {
    expect(() => loadConfig({ SALESFORCE_ALLOWED_DOMAINS: bad })).toThrow('SALESFORCE_ALLOWED_DOMAINS');
  }
});
