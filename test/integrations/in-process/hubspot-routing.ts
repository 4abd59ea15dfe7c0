import { eventually } from '../../support/helpers';
import { startFakeHubspot, type FakeHubspot } from '../../../src/stack/crm-fakes/hubspot';
import { connectedStack, type ConnectedStack } from '../../support/crm';
import type { TestStack } from '../../support/stack';

/*
 * A HubSpot connector naming a routing policy: each new contact is routed by it (round robin over the
 * team), the routed agent's HubSpot owner written back; a contact the policy queues gets its owner when
 * the queue assigns it; under `when_none_eligible: reject` nobody is assigned and that is reported.
 */

let stack: TestStack;
let hubspot: FakeHubspot;
let token: string;
let inboundUrl: string;
const settings = () => ({ client_secret: hubspot.clientSecret, access_token: hubspot.accessToken });
const agentMap = { '501': 'a1', '777': 'a2' };

beforeAll(async () => {
  hubspot = await startFakeHubspot();
  let put: ConnectedStack['put'];
  ({ stack, token, inboundUrl, put } = await connectedStack('hubspot', {
    env: { HUBSPOT_API_URL: hubspot.url },
    // The router's reassignment is judged on a short deadline, below the API's 10 s floor.
    stack: { routingMinFirstResponseMs: 1000 },
    agents: ['a1', 'a2'],
    before: async (stack, token) => {
      expect((await stack.api('PUT', '/teams/sales', { token, body: { name: 'Sales', members: [{ agent: 'a1' }, { agent: 'a2' }] } })).status).toBe(200);
      expect((await stack.api('PUT', '/routing-policies/sales', { token, body: { team: 'sales', capacity: 1, working_hours: false } })).status).toBe(200);
    },
    body: { policy: 'sales', settings: settings(), agent_map: agentMap },
  }));
  expect(put.body.policy).toBe('sales');
  hubspot.subscribe(inboundUrl);
});
afterAll(async () => {
  await stack?.stop();
  await hubspot?.stop();
});

let nextContact = 20_000 + Math.floor(Math.random() * 1000);
const writesOf = (id: number) => hubspot.writes.filter((w) => w.id === String(id));
const activeAgents = async (clientId: string) => (await stack.api('GET', `/clients/${clientId}/agents`, { token })).body.assignments?.map((a: any) => a.agent);
const createdEvents = (id: number) => stack.prisma.crmInboundEvent.findMany({ where: { business: stack.business, crm: 'hubspot', recordId: String(id), kind: 'created' } });
const createdEvent = (id: number) => stack.prisma.crmInboundEvent.findFirst({ where: { business: stack.business, crm: 'hubspot', recordId: String(id), kind: 'created' } });

async function newLead(): Promise<number> {
  const id = nextContact++;
  expect(await hubspot.deliver(inboundUrl, [hubspot.createContact(id, { firstname: `Lead${id}`, phone: '+14155550142' })])).toBe(200);
  return id;
}

test('new contacts are routed by the policy, each routed agent\'s owner written back; a queued one gets its owner when the queue assigns it', async () => {
  const first = await newLead();
  await eventually(async () => writesOf(first).some((w) => w.status === 200), 30_000);
  const second = await newLead();
  await eventually(async () => writesOf(second).some((w) => w.status === 200), 30_000);
  expect(writesOf(first)).toEqual([{ id: String(first), owner: '501', status: 200 }]);
  expect(writesOf(second)).toEqual([{ id: String(second), owner: '777', status: 200 }]);
  expect(await activeAgents(`hubspot:${first}`)).toEqual(['a1']);
  expect(await activeAgents(`hubspot:${second}`)).toEqual(['a2']);
  const decisions = await stack.api('GET', `/clients/hubspot:${first}/agents`, { token });
  expect(decisions.body.assignments[0].routed_by).toMatchObject({ policy: 'sales', version: 1 });

  // Both agents at capacity: the third waits in the queue, nothing written back yet.
  const third = await newLead();
  await eventually(async () => ((await stack.api('GET', '/routing-policies/sales/queue', { token })).body.queue.length === 1 ? true : undefined), 30_000);
  expect((await stack.api('GET', '/routing-policies/sales/queue', { token })).body.queue[0].client).toBe(`hubspot:${third}`);
  expect(writesOf(third)).toEqual([]);
  expect((await createdEvent(third))!.processedAt).toBeNull();

  // a1 frees up: the queue assigns the third to a1 and its owner is written back.
  expect((await stack.api('DELETE', `/clients/hubspot:${first}/agents/a1`, { token })).status).toBe(200);
  await eventually(async () => writesOf(third).some((w) => w.status === 200), 30_000);
  expect(writesOf(third)).toEqual([{ id: String(third), owner: '501', status: 200 }]);
  expect(await activeAgents(`hubspot:${third}`)).toEqual(['a1']);
  await eventually(async () => (await createdEvent(third))?.outcome === 'routed' || undefined, 30_000);

  // The same deliveries again change nothing: no second decision, no second write.
  // The delivery is recorded before its 200, and a row is finished only after its decision and write.
  expect(await hubspot.deliver(inboundUrl, [hubspot.createContact(second, { firstname: 'Again' })])).toBe(200);
  await eventually(async () => (await createdEvents(second)).every((row) => row.processedAt) || undefined, 30_000);
  expect(writesOf(second)).toHaveLength(1);
  expect(await stack.prisma.routingDecision.count({ where: { business: stack.business, client: { id: `hubspot:${second}` } } })).toBe(1);
});

test('a queued lead taken out of the queue ends canceled: nobody assigned, nothing written back', async () => {
  // a1 holds the third lead and a2 the second: the policy queues this one.
  const id = await newLead();
  const clientId = `hubspot:${id}`;
  await eventually(async () => ((await stack.api('GET', '/routing-policies/sales/queue', { token })).body.queue.some((q: any) => q.client === clientId) ? true : undefined), 30_000);
  expect((await stack.api('DELETE', `/clients/${clientId}/route`, { token })).status).toBe(200);
  await eventually(async () => (await createdEvent(id))?.outcome === 'canceled' || undefined, 60_000);
  expect(writesOf(id)).toEqual([]);
  expect(await activeAgents(clientId)).toEqual([]);
  expect((await stack.prisma.crmLead.findFirstOrThrow({ where: { business: stack.business, crm: 'hubspot', recordId: String(id) } })).writeStatus).toBe('canceled');
});

test('under a policy that rejects when nobody is eligible, the lead is not assigned, nothing is written back, and crm.owner_sync_failed says why', async () => {
  expect((await stack.api('PUT', '/routing-policies/strict', { token, body: { team: 'sales', capacity: 1, working_hours: false, when_none_eligible: 'reject' } })).status).toBe(200);
  expect((await stack.api('PUT', '/integrations/hubspot', { token, body: { policy: 'strict', settings: settings(), agent_map: agentMap } })).status).toBe(200);
  // a1 holds the third lead and a2 the second: both at capacity.
  const id = await newLead();
  await eventually(async () => (await createdEvent(id))?.outcome === 'rejected' || undefined, 30_000);
  const clientId = `hubspot:${id}`;
  expect(await activeAgents(clientId)).toEqual([]);
  expect(writesOf(id)).toEqual([]);
  const events = (await stack.api('GET', `/events?type=crm.owner_sync_failed&client=${encodeURIComponent(clientId)}`, { token })).body.events;
  expect(events).toHaveLength(1);
  expect(events[0].data).toMatchObject({ client: clientId, agent: null, error: 'No agent of routing policy strict is available: the lead was not assigned and no owner written back' });
});

test('the router reassigning a lead nobody answered writes the new agent\'s HubSpot owner back', async () => {
  expect((await stack.api('PUT', '/routing-policies/answering', { token, body: { team: 'sales', capacity: 5, working_hours: false, first_response_within: 'PT3S', max_reassignments: 1 } })).status).toBe(200);
  expect((await stack.api('PUT', '/integrations/hubspot', { token, body: { policy: 'answering', settings: settings(), agent_map: agentMap } })).status).toBe(200);
  const id = await newLead();
  await eventually(async () => writesOf(id).length === 1 || undefined, 30_000);
  const [first] = await activeAgents(`hubspot:${id}`);
  const other = first === 'a1' ? 'a2' : 'a1';
  const ownerOf = (agent: string) => Object.entries(agentMap).find(([, a]) => a === agent)![0];
  expect(writesOf(id)[0].owner).toBe(ownerOf(first));

  // Nobody answers within 3 s: the router moves the client to the other agent, and HubSpot follows.
  await eventually(async () => writesOf(id).length === 2 || undefined, 60_000);
  expect(await activeAgents(`hubspot:${id}`)).toEqual([other]);
  expect(writesOf(id)[1]).toEqual({ id: String(id), owner: ownerOf(other), status: 200 });
  expect(hubspot.contacts.get(String(id))!.hubspot_owner_id).toBe(ownerOf(other));
});
