import { startFakeHubspot, type FakeHubspot } from '../../src/stack/crm-fakes/hubspot';
import type { ApiResponse } from './http';
import { startTestStack, uniqueName, type TestStack, type TestStackOptions } from './stack';

export interface ConnectedStack {
  stack: TestStack;
  token: string;
  /** The inbound URL the connector's PUT answered, to paste into the CRM. */
  inboundUrl: string;
  put: ApiResponse;
}

/**
 * A test stack with the CRM's API base pointed at its fake (`env`), the caller's agents, whatever
 * `before` sets up (teams, policies), and the connector put as `body` says; `stack` for the stack's other options.
 */
export async function connectedStack(
  crm: 'hubspot' | 'salesforce' | 'pipedrive',
  options: { env: Record<string, string>; agents: string[]; body: Record<string, unknown>; before?: (stack: TestStack, token: string) => Promise<void>; stack?: Omit<TestStackOptions, 'env'> },
): Promise<ConnectedStack> {
  const stack = await startTestStack({ ...options.stack, env: options.env });
  const token = stack.token(uniqueName('user'));
  for (const _id of options.agents) expect((await stack.api('POST', '/agents', { token, body: { _id } })).status).toBe(201);
  await options.before?.(stack, token);
  const put = await stack.api('PUT', `/integrations/${crm}`, { token, body: options.body });
  expect(put.status).toBe(201);
  return { stack, token, inboundUrl: put.body.inbound_url, put };
}

export interface HubspotSuite extends Omit<ConnectedStack, 'put'> {
  hubspot: FakeHubspot;
}

/**
 * A file's stack with a HubSpot connector to a HubSpot fake of its own, assigning `a1` (HubSpot owner
 * 501): started before the file's tests and stopped after them. Its fields are there from the first test.
 */
export function hubspotSuite(options: { env?: (hubspot: FakeHubspot) => Record<string, string>; after?: (suite: HubspotSuite) => Promise<void> } = {}): HubspotSuite {
  const suite = {} as HubspotSuite;
  beforeAll(async () => {
    suite.hubspot = await startFakeHubspot();
    const { hubspot } = suite;
    const connected = await connectedStack('hubspot', {
      env: { HUBSPOT_API_URL: hubspot.url, ...options.env?.(hubspot) },
      agents: ['a1'],
      body: { agents: ['a1'], settings: { client_secret: hubspot.clientSecret, access_token: hubspot.accessToken }, agent_map: { '501': 'a1' } },
    });
    Object.assign(suite, { stack: connected.stack, token: connected.token, inboundUrl: connected.inboundUrl });
    await options.after?.(suite);
  });
  afterAll(async () => {
    await suite.stack?.stop();
    await suite.hubspot?.stop();
  });
  return suite;
}
