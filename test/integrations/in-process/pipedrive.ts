import { eventually } from '../../support/helpers';
import { startFakePipedrive, type FakePipedrive } from '../../../src/stack/crm-fakes/pipedrive';
import { connectedStack } from '../../support/crm';
import type { TestStack } from '../../support/stack';

/*
 * Pipedrive end to end: its webhooks v2 sender posts with the Basic credentials set on the webhook; the
 * lead's workflow reads the person (API v2) or lead (API v1) through the pipedrive SDK from the fake,
 * makes the client, assigns the connector's agent and writes owner_id back. Each `test.concurrent` test
 * owns its person or lead: they run side by side; the sweep, which counts every record of the fake, runs
 * alone after them (docs/design.md, "Suite: concurrent tests inside a file").
 */

let stack: TestStack;
let pipedrive: FakePipedrive;
let token: string;
let inboundUrl: string;
const credentials = { user: 'crm-hook', password: 'a long webhook password' };

beforeAll(async () => {
  pipedrive = await startFakePipedrive();
  ({ stack, token, inboundUrl } = await connectedStack('pipedrive', {
    env: { PIPEDRIVE_API_URL: pipedrive.url },
    agents: ['a1'],
    body: { agents: ['a1'], settings: { api_token: pipedrive.apiToken, webhook_user: credentials.user, webhook_password: credentials.password }, agent_map: { '4242': 'a1' } },
  }));
  expect(inboundUrl).toMatch(new RegExp(`/integrations/pipedrive/${stack.business}/webhook$`));
});
afterAll(async () => {
  await stack?.stop();
  await pipedrive?.stop();
});

let nextPerson = 30_000 + Math.floor(Math.random() * 1000);
const writesOf = (id: string | number) => pipedrive.writes.filter((w) => w.id === String(id));
const activeAgents = async (clientId: string) => (await stack.api('GET', `/clients/${clientId}/agents`, { token })).body.assignments?.map((a: any) => a.agent);
const inboundEvents = (id: string | number) => stack.prisma.crmInboundEvent.findMany({ where: { business: stack.business, crm: 'pipedrive', recordId: String(id) } });

test.concurrent('a person\'s creation makes a client, assigns the agent and writes owner_id back through API v2', async () => {
  const id = nextPerson++;
  const event = pipedrive.createPerson(id, { name: 'Katherine Johnson', phones: [{ value: '+1 757 555 0100', primary: true, label: 'work' }] });
  expect(await pipedrive.deliver(inboundUrl, event, credentials)).toBe(200);
  await eventually(async () => writesOf(id).length > 0 || undefined, 30_000);
  const clientId = `pipedrive:${id}`;
  expect((await stack.api('GET', `/clients/${clientId}`, { token })).body).toMatchObject({ _id: clientId, name: 'Katherine Johnson', phone: '+17575550100' });
  expect(await activeAgents(clientId)).toEqual(['a1']);
  expect(writesOf(id)).toEqual([{ id: String(id), owner: 4242, api: 'v2', status: 200 }]);
  expect(pipedrive.persons.get(id)!.owner_id).toBe(4242);
});

test.concurrent('a lead\'s creation makes a client named by its title and writes owner_id back through API v1', async () => {
  const { id, event } = pipedrive.createLead({ title: 'Acme deal' });
  expect(await pipedrive.deliver(inboundUrl, event, credentials)).toBe(200);
  await eventually(async () => writesOf(id).length > 0 || undefined, 30_000);
  expect((await stack.api('GET', `/clients/pipedrive:${id}`, { token })).body).toMatchObject({ name: 'Acme deal' });
  expect(writesOf(id)).toEqual([{ id, owner: 4242, api: 'v1', status: 200 }]);
});

test.concurrent('bad Basic credentials are a 401 and nothing is stored', async () => {
  const id = nextPerson++;
  const event = pipedrive.createPerson(id, { name: 'Mallory' });
  expect(await pipedrive.deliver(inboundUrl, event, { ...credentials, password: 'wrong' })).toBe(401);
  expect(await pipedrive.deliver(inboundUrl, event, { ...credentials, user: 'someone' })).toBe(401);
  const bare = await fetch(inboundUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
  expect(bare.status).toBe(401);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(await inboundEvents(id)).toEqual([]);
  expect((await stack.api('GET', `/clients/pipedrive:${id}`, { token })).status).toBe(404);
  expect(writesOf(id)).toEqual([]);
});

test.concurrent('a creation retried (meta.attempt raised) and sent again by a second webhook makes one decision and one write', async () => {
  const id = nextPerson++;
  const event = pipedrive.createPerson(id, { name: 'Dorothy Vaughan', phones: [{ value: '+17575550101', primary: true }] });
  const retries = [event, pipedrive.retryOf(event), pipedrive.retryOf(pipedrive.retryOf(event))];
  const byAnotherWebhook = pipedrive.retryOf(event, { webhookId: '902' });
  const statuses = await Promise.all([...retries, byAnotherWebhook].map((e) => pipedrive.deliver(inboundUrl, e, credentials)));
  expect(statuses).toEqual([200, 200, 200, 200]);
  expect(await pipedrive.deliver(inboundUrl, pipedrive.retryOf(retries[2]), credentials)).toBe(200);
  await eventually(async () => writesOf(id).length > 0 || undefined, 30_000);
  await eventually(async () => ((await inboundEvents(id))[0]?.processedAt ? true : undefined), 30_000);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(writesOf(id)).toHaveLength(1);
  expect(await inboundEvents(id)).toHaveLength(1);
  expect(await stack.prisma.assignment.count({ where: { client: { business: stack.business, id: `pipedrive:${id}` } } })).toBe(1);
});

test('the catch-up sweep routes a person and a lead whose webhooks never came, once', async () => {
  const id = nextPerson++;
  pipedrive.createPerson(id, { name: 'Missed Person', phones: [{ value: '+17575550102', primary: true }] });
  const { id: leadId } = pipedrive.createLead({ title: 'Missed lead' });
  // Every record of the fake no webhook brought (the one refused above too) is routed by the sweep.
  const brought = new Set((await stack.prisma.crmInboundEvent.findMany({ where: { business: stack.business, crm: 'pipedrive' } })).map((e) => e.recordId));
  const all = [...[...pipedrive.persons.keys()].map(String), ...pipedrive.leads.keys()];
  const missed = all.filter((record) => !brought.has(record));
  expect(missed).toEqual(expect.arrayContaining([String(id), leadId]));
  const first = await stack.api('POST', '/integrations/pipedrive/sync', { token });
  expect(first.status).toBe(200);
  expect(first.body).toEqual({ listed: all.length, recorded: missed.length, resumed: 0 });
  await eventually(async () => (writesOf(id).length > 0 && writesOf(leadId).length > 0) || undefined, 30_000);
  expect(writesOf(id)).toEqual([{ id: String(id), owner: 4242, api: 'v2', status: 200 }]);
  expect(writesOf(leadId)).toEqual([{ id: leadId, owner: 4242, api: 'v1', status: 200 }]);
  expect((await stack.api('POST', '/integrations/pipedrive/sync', { token })).body).toEqual({ listed: all.length, recorded: 0, resumed: 0 });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(writesOf(id)).toHaveLength(1);
  expect(writesOf(leadId)).toHaveLength(1);
});
