import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sweepConnectors } from '../../src/use-cases/integrations/sync';
import { eventually } from '../support/helpers';
import { startFakePipedrive, type FakePipedrive } from '../../src/stack/crm-fakes/pipedrive';
import { hubspotSuite } from '../support/crm';

/*
 * The catch-up sweep (`POST /integrations/{crm}/sync`, and hourly): a contact HubSpot created but whose
 * webhook never came is listed through the SDK's search, routed and its owner written back, once; a
 * contact its webhook brought is left alone; a webhook arriving after the sweep changes nothing.
 */

let pipedrive: FakePipedrive;
beforeAll(async () => {
  pipedrive = await startFakePipedrive();
});
afterAll(() => pipedrive?.stop());
const suite = hubspotSuite({ env: () => ({ PIPEDRIVE_API_URL: pipedrive.url }) });

const writesOf = (id: number) => suite.hubspot.writes.filter((w) => w.id === String(id));
const sync = () => suite.stack.api('POST', '/integrations/hubspot/sync', { token: suite.token });

test('the sweep routes a contact whose webhook was missed, once, and leaves the ones webhooks brought alone', async () => {
  const delivered = 40_000 + Math.floor(Math.random() * 1000);
  const missed = delivered + 1;
  expect(await suite.hubspot.deliver(suite.inboundUrl, [suite.hubspot.createContact(delivered, { firstname: 'Webhook', phone: '+14155550160' })])).toBe(200);
  await eventually(async () => writesOf(delivered).length > 0 || undefined, 30_000);
  const missedCreation = suite.hubspot.createContact(missed, { firstname: 'Missed', lastname: 'Lead', phone: '+14155550161' });

  const first = await sync();
  expect(first.status).toBe(200);
  expect(first.body).toEqual({ listed: 2, recorded: 1, resumed: 0 });
  await eventually(async () => writesOf(missed).some((w) => w.status === 200) || undefined, 30_000);
  expect((await suite.stack.api('GET', `/clients/hubspot:${missed}`, { token: suite.token })).body).toMatchObject({ name: 'Missed Lead', phone: '+14155550161' });
  expect((await suite.stack.api('GET', `/clients/hubspot:${missed}/agents`, { token: suite.token })).body.assignments.map((a: any) => a.agent)).toEqual(['a1']);

  // Again, and then the late webhook: nothing new is routed or written.
  expect((await sync()).body).toEqual({ listed: 2, recorded: 0, resumed: 0 });
  expect(await suite.hubspot.deliver(suite.inboundUrl, [missedCreation])).toBe(200);
  await eventually(async () => {
    const events = await suite.stack.prisma.crmInboundEvent.findMany({ where: { business: suite.stack.business, crm: 'hubspot', recordId: String(missed), kind: 'created' } });
    return events.length === 2 && events.every((e) => e.processedAt) ? true : undefined;
  }, 30_000);
  expect(writesOf(missed)).toHaveLength(1);
  expect(writesOf(delivered)).toHaveLength(1);
});

test('a sweep of a CRM the caller has not connected is a 404', async () => {
  const answer = await suite.stack.api('POST', '/integrations/salesforce/sync', { token: suite.token });
  expect(answer.status).toBe(404);
  expect(answer.body.detail).toBe('No salesforce connector');
});

test('the hourly sweep runs connectors side by side: a CRM that stalls delays no other\'s catch-up, and is given up at its own timeout', async () => {
  const pipedriveSettings = { api_token: pipedrive.apiToken, webhook_user: 'hook', webhook_password: 'pw-sweep' };
  expect((await suite.stack.api('PUT', '/integrations/pipedrive', { token: suite.token, body: { agents: ['a1'], settings: pipedriveSettings, agent_map: { '4242': 'a1' } } })).status).toBe(201);
  const person = 60_000 + Math.floor(Math.random() * 1000);
  pipedrive.createPerson(person, { name: 'Swept Aside', phones: [{ value: '+14155550162', primary: true }] });
  // HubSpot's API accepts the connection and never answers.
  const stalled = createServer(() => undefined);
  await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
  const stalledUrl = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}`;
  try {
    // HubSpot's connector comes first: swept one after the other, Pipedrive's would wait behind it.
    const connectors = await suite.stack.prisma.crmConnector.findMany({ where: { business: suite.stack.business }, orderBy: { crm: 'asc' } });
    expect(connectors.map((c) => c.crm)).toEqual(['hubspot', 'pipedrive']);
    const deps = { prisma: suite.stack.prisma, secrets: suite.stack.services.secrets, temporal: suite.stack.temporal, taskQueue: suite.stack.taskQueue, crmEndpoints: { hubspot: stalledUrl, pipedrive: pipedrive.url }, crmNetwork: suite.stack.services.crmNetwork };
    const failures: [string, string][] = [];
    const started = Date.now();
    let ended = false;
    const timeoutMs = 6_000;
    const sweep = sweepConnectors(deps, connectors, (connector, error) => failures.push([connector.crm, (error as Error).message]), { timeoutMs }).finally(() => {
      ended = true;
    });
    // Pipedrive's missed person is recorded and routed while HubSpot's sweep still hangs.
    await eventually(async () => pipedrive.writes.some((w) => w.id === String(person)) || undefined, timeoutMs - 500);
    expect(ended).toBe(false);
    expect(await sweep).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(timeoutMs);
    expect(failures).toEqual([['hubspot', 'The hubspot sweep took longer than 6000 ms: given up until the next sweep']]);
    expect(await suite.stack.prisma.crmInboundEvent.count({ where: { business: suite.stack.business, crm: 'pipedrive', recordId: String(person), eventKey: `sweep:${person}` } })).toBe(1);
  } finally {
    stalled.closeAllConnections();
    await new Promise((resolve) => stalled.close(resolve));
  }
});
