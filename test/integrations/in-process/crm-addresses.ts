import { hubspotApi } from '../../../src/crm/hubspot';
import { outboundNetwork } from '../../../src/net/outbound';
import type { HostLookup } from '../../../src/net/public-address';
import { startCountingListener, type CountingListener } from '../../support/counting-listener';
import { expectProblem } from '../../support/helpers';
import { startTestStack, type TestStack } from '../../support/stack';

/*
 * The CRMs' SDKs connect through the public-address guard, as production runs them
 * (CRM_ALLOW_PRIVATE_URLS=false): each CRM's API is a name the stand-in resolver answers with
 * 127.0.0.1, where a listener counts connections. The sweep asks each CRM; none is reached.
 */

const toLoopback: HostLookup = async () => [{ address: '127.0.0.1' }];

let listener: CountingListener;
let stack: TestStack;
let token: string;

beforeAll(async () => {
  listener = await startCountingListener((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  const on = (name: string) => `http://${name}.example.test:${listener.port}`;
  stack = await startTestStack({
    env: { CRM_ALLOW_PRIVATE_URLS: 'false', HUBSPOT_API_URL: on('hubspot'), SALESFORCE_API_URL: on('salesforce'), PIPEDRIVE_API_URL: on('pipedrive') },
    hostLookup: toLoopback,
  });
  token = stack.token('crm-addresses-user');
  expect((await stack.api('POST', '/agents', { token, body: { _id: 'a1' } })).status).toBe(201);
  const connectors = {
    hubspot: { client_secret: 's', access_token: 'pat-na1-x' },
    salesforce: { organization_id: '00D000000000001AAA', instance_url: 'https://acme.my.salesforce.com', access_token: 't' },
    pipedrive: { api_token: 'p', webhook_user: 'u', webhook_password: 'w' },
  };
  for (const [crm, settings] of Object.entries(connectors)) {
    expect((await stack.api('PUT', `/integrations/${crm}`, { token, body: { agents: ['a1'], settings } })).status).toBe(201);
  }
});
afterAll(async () => {
  await stack?.stop();
  await listener?.close();
});

test.each([
  ['hubspot', 'HubSpot was not asked to list new contacts'],
  ['salesforce', 'Salesforce was not asked to list new Leads'],
  ['pipedrive', 'Pipedrive was not asked to list new records'],
])('%s: a sweep of a CRM whose address resolves to 127.0.0.1 is refused at connect time, and nothing reaches it', async (crm, refused) => {
  const answer = await stack.api('POST', `/integrations/${crm}/sync`, { token });
  expectProblem(answer, 503, `${refused}: its address is not public (private, loopback and link-local addresses are refused): nothing was swept, try again later`);
  expect(listener.connections).toBe(0);
});

test('the same SDK without the guard reaches the listener through the stand-in resolver (the refusal above is the guard)', async () => {
  const before = listener.requests.length;
  await hubspotApi('pat-na1-x', `http://hubspot.example.test:${listener.port}`, outboundNetwork({ publicOnly: false, lookup: toLoopback }))
    .listCreatedSince(new Date(), 1)
    .catch(() => undefined);
  expect(listener.requests.length).toBeGreaterThan(before);
});
