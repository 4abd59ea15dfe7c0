import { eventually } from '../support/helpers';
import { startFakeHubspot, type FakeHubspot } from '../support/fake-hubspot';
import { connectedStack } from '../support/crm';
import type { TestStack } from '../support/stack';

/*
 * The catch-up sweep (`POST /integrations/{crm}/sync`, and hourly): a contact HubSpot created but whose
 * webhook never came is listed through the SDK's search, routed and its owner written back, once; a
 * contact its webhook brought is left alone; a webhook arriving after the sweep changes nothing.
 */

let stack: TestStack;
let hubspot: FakeHubspot;
let token: string;
let inboundUrl: string;

beforeAll(async () => {
  hubspot = await startFakeHubspot();
  ({ stack, token, inboundUrl } = await connectedStack('hubspot', {
    env: { HUBSPOT_API_URL: hubspot.url },
    agents: ['a1'],
    body: { agents: ['a1'], settings: { client_secret: hubspot.clientSecret, access_token: hubspot.accessToken }, agent_map: { '501': 'a1' } },
  }));
});
afterAll(async () => {
  await stack?.stop();
  await hubspot?.stop();
});

const writesOf = (id: number) => hubspot.writes.filter((w) => w.id === String(id));
const sync = () => stack.api('POST', '/integrations/hubspot/sync', { token });

test('the sweep routes a contact whose webhook was missed, once, and leaves the ones webhooks brought alone', async () => {
  const delivered = 40_000 + Math.floor(Math.random() * 1000);
  const missed = delivered + 1;
  expect(await hubspot.deliver(inboundUrl, [hubspot.createContact(delivered, { firstname: 'Webhook', phone: '+14155550160' })])).toBe(200);
  await eventually(async () => writesOf(delivered).length > 0 || undefined, 30_000);
  const missedCreation = hubspot.createContact(missed, { firstname: 'Missed', lastname: 'Lead', phone: '+14155550161' });

  const first = await sync();
  expect(first.status).toBe(200);
  expect(first.body).toEqual({ listed: 2, recorded: 1, resumed: 0 });
  await eventually(async () => writesOf(missed).some((w) => w.status === 200) || undefined, 30_000);
  expect((await stack.api('GET', `/clients/hubspot:${missed}`, { token })).body).toMatchObject({ name: 'Missed Lead', phone: '+14155550161' });
  expect((await stack.api('GET', `/clients/hubspot:${missed}/agents`, { token })).body.assignments.map((a: any) => a.agent)).toEqual(['a1']);

  // Again, and then the late webhook: nothing new is routed or written.
  expect((await sync()).body).toEqual({ listed: 2, recorded: 0, resumed: 0 });
  expect(await hubspot.deliver(inboundUrl, [missedCreation])).toBe(200);
  await eventually(async () => {
    const events = await stack.prisma.crmInboundEvent.findMany({ where: { business: stack.business, crm: 'hubspot', recordId: String(missed), kind: 'created' } });
    return events.length === 2 && events.every((e) => e.processedAt) ? true : undefined;
  }, 30_000);
  expect(writesOf(missed)).toHaveLength(1);
  expect(writesOf(delivered)).toHaveLength(1);
});

test('a sweep of a CRM the caller has not connected is a 404', async () => {
  const answer = await stack.api('POST', '/integrations/salesforce/sync', { token });
  expect(answer.status).toBe(404);
  expect(answer.body.detail).toBe('No salesforce connector');
});
