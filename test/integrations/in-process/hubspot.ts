import { crmLeadWorkflowId } from '../../../src/domain';
import { eventually } from '../../support/helpers';
import { temporalTextOf } from '../../support/history';
import { startFakeHubspot, type FakeHubspot } from '../../../src/stack/crm-fakes/hubspot';
import { connectedStack } from '../../support/crm';
import { createAdmissions, DEFAULT_ADMISSION } from '../../../src/starters/admission';
import { originOf, uniqueName, type TestStack } from '../../support/stack';

/*
 * HubSpot end to end: its webhook sender (signing v3) posts to the inbound URL the connector answered,
 * the lead's workflow reads the contact through @hubspot/api-client from the fake HubSpot API, makes the
 * client, assigns the connector's agent through assign-agents and writes hubspot_owner_id back; the
 * write echoes back as HubSpot does and is recognised. Each `test.concurrent` test owns its contacts:
 * they run side by side; the two that script the fake's next write answer (`refuseNextWrites`, whatever
 * contact it is for) run alone after them (docs/design.md, "Suite: concurrent tests inside a file").
 */

let stack: TestStack;
let hubspot: FakeHubspot;
let token: string;
let inboundUrl: string;

beforeAll(async () => {
  hubspot = await startFakeHubspot();
  ({ stack, token, inboundUrl } = await connectedStack('hubspot', {
    env: { HUBSPOT_API_URL: hubspot.url },
    agents: ['a1', 'a2'],
    body: { agents: ['a1'], settings: { client_secret: hubspot.clientSecret, access_token: hubspot.accessToken }, agent_map: { '501': 'a1', '777': 'a2' } },
  }));
  expect(inboundUrl).toBe(`${stack.baseUrl.replace(/\/ext\/v2\/.*$/, '')}/integrations/hubspot/${stack.business}/webhook`);
  hubspot.subscribe(inboundUrl);
});
afterAll(async () => {
  await stack?.stop();
  await hubspot?.stop();
});

let nextContact = 7_000 + Math.floor(Math.random() * 1000);
const newContactId = () => nextContact++;

const inboundEvents = (recordId: number) => stack.prisma.crmInboundEvent.findMany({ where: { business: stack.business, crm: 'hubspot', recordId: String(recordId) }, orderBy: { receivedAt: 'asc' } });
const activeAgents = async (clientId: string) => (await stack.api('GET', `/clients/${clientId}/agents`, { token })).body.assignments?.map((a: any) => a.agent);
const writesOf = (id: number) => hubspot.writes.filter((w) => w.id === String(id));
const eventsOfType = async (type: string, clientId: string) => (await stack.api('GET', `/events?type=${type}&client=${encodeURIComponent(clientId)}`, { token })).body.events;

test.concurrent('a signed contact creation makes a client, assigns the connector\'s agent and writes its HubSpot owner back; the echo of that write is ignored', async () => {
  const id = newContactId();
  const created = hubspot.createContact(id, { firstname: 'Ada', lastname: 'Lovelace', phone: '+1 (415) 555-0100', hs_timezone: 'america_slash_new_york' });
  const started = Date.now();
  expect(await hubspot.deliver(inboundUrl, [created])).toBe(200);

  await eventually(async () => writesOf(id).some((w) => w.status === 200), 30_000);
  const clientId = `hubspot:${id}`;
  expect((await stack.api('GET', `/clients/${clientId}`, { token })).body).toMatchObject({ _id: clientId, name: 'Ada Lovelace', phone: '+14155550100', timezone: 'America/New_York' });
  expect(await activeAgents(clientId)).toEqual(['a1']);
  expect(writesOf(id)).toEqual([{ id: String(id), owner: '501', status: 200 }]);
  expect(hubspot.contacts.get(String(id))!.hubspot_owner_id).toBe('501');
  console.log(`hubspot: creation to owner written in ${Date.now() - started} ms`);

  // HubSpot posts the write back as a property change: recognised as ours.
  const events = await eventually(async () => {
    const rows = await inboundEvents(id);
    return rows.length === 2 && rows.every((row) => row.processedAt) ? rows : undefined;
  });
  expect(events.map((e) => [e.kind, e.outcome])).toEqual([['created', 'routed'], ['owner_changed', 'echo']]);
  expect(await eventsOfType('crm.*', clientId)).toEqual([]);
  expect((await stack.prisma.crmLead.findFirstOrThrow({ where: { business: stack.business, crm: 'hubspot', recordId: String(id) } })).writeStatus).toBe('written');

  // Nothing personal reached Temporal: ids only.
  const text = await temporalTextOf(stack.temporal, crmLeadWorkflowId({ business: stack.business, crm: 'hubspot', recordId: String(id) }));
  for (const personal of ['Ada', 'Lovelace', '4155550100', hubspot.accessToken, hubspot.clientSecret]) expect(text).not.toContain(personal);
});

test.concurrent('a bad or stale signature is a 401 and nothing is stored', async () => {
  const id = newContactId();
  const created = hubspot.createContact(id, { firstname: 'Eve', phone: '+14155550111' });
  expect(await hubspot.deliver(inboundUrl, [created], { secret: 'not-the-secret' })).toBe(401);
  expect(await hubspot.deliver(inboundUrl, [created], { timestamp: Date.now() - 6 * 60 * 1000 })).toBe(401);
  expect(await hubspot.deliver(inboundUrl, [created], { timestamp: Date.now() + 6 * 60 * 1000 })).toBe(401);
  // Signed for another URL (another business's), or for no connector at all.
  expect(await hubspot.deliver(inboundUrl.replace(stack.business, uniqueName('biz')), [created])).toBe(401);
  const unsigned = await fetch(inboundUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([created]) });
  expect(unsigned.status).toBe(401);
  expect(await unsigned.json()).toMatchObject({ status: 401, detail: 'Invalid signature' });
  // A delivery's events are recorded before it is answered (recordAndHandOver), so a 401 has stored all it ever will.
  expect(await inboundEvents(id)).toEqual([]);
  expect((await stack.api('GET', `/clients/hubspot:${id}`, { token })).status).toBe(404);
  expect(writesOf(id)).toEqual([]);
});

test.concurrent('the same delivery five times makes one decision, one assignment and one write', async () => {
  const id = newContactId();
  const created = hubspot.createContact(id, { firstname: 'Grace', phone: '+14155550122' });
  const answers = await Promise.all([1, 2, 3, 4, 5].map(() => hubspot.deliver(inboundUrl, [created])));
  expect(answers).toEqual([200, 200, 200, 200, 200]);
  await eventually(async () => writesOf(id).length > 0, 30_000);
  for (let i = 0; i < 3; i++) expect(await hubspot.deliver(inboundUrl, [{ ...created, attemptNumber: i + 1 }])).toBe(200);
  // Every delivery was recorded before its 200, and a row is finished only after its write: from here nothing more is written.
  await eventually(async () => (await inboundEvents(id)).every((row) => row.processedAt) || undefined);
  expect(writesOf(id)).toEqual([{ id: String(id), owner: '501', status: 200 }]);
  expect((await inboundEvents(id)).filter((row) => row.kind === 'created')).toHaveLength(1);
  const all = (await stack.api('GET', `/clients/hubspot:${id}/agents?status=all`, { token })).body.assignments;
  expect(all.map((a: any) => [a.agent, a.status])).toEqual([['a1', 'active']]);
  expect(await eventsOfType('assignment.created', `hubspot:${id}`)).toHaveLength(1);
});

test('a 429 from HubSpot is retried after its Retry-After, and the owner is written once', async () => {
  const id = newContactId();
  hubspot.refuseNextWrites([429]);
  expect(await hubspot.deliver(inboundUrl, [hubspot.createContact(id, { firstname: 'Katherine' })])).toBe(200);
  await eventually(async () => writesOf(id).some((w) => w.status === 200), 30_000);
  const [refused, accepted] = writesOf(id);
  expect([refused.status, accepted.status]).toEqual([429, 200]);
  expect(writesOf(id)).toHaveLength(2);
  expect(await eventsOfType('crm.owner_sync_failed', `hubspot:${id}`)).toEqual([]);
});

test('a final refusal is recorded on the decision and as crm.owner_sync_failed', async () => {
  const id = newContactId();
  hubspot.refuseNextWrites([400]);
  expect(await hubspot.deliver(inboundUrl, [hubspot.createContact(id, { firstname: 'Dorothy' })])).toBe(200);
  const [event] = await eventually(async () => eventsOfType('crm.owner_sync_failed', `hubspot:${id}`).then((list) => (list.length ? list : undefined)), 30_000);
  expect(event.data).toEqual({ client: `hubspot:${id}`, crm: 'hubspot', record_id: String(id), agent: 'a1', crm_owner_id: '501', error: 'HubSpot refused to write the contact owner (HTTP 400)', reason: 'rule' });
  expect(writesOf(id)).toHaveLength(1);
  expect(await stack.prisma.crmLead.findFirstOrThrow({ where: { business: stack.business, crm: 'hubspot', recordId: String(id) } })).toMatchObject({ writeStatus: 'failed', writeError: 'HubSpot refused to write the contact owner (HTTP 400)' });
  // The client is still assigned: only the write-back failed.
  expect(await activeAgents(`hubspot:${id}`)).toEqual(['a1']);
});

test.concurrent('a person changing the owner in HubSpot after our write is crm.owner_conflict, naming both, and changes nothing here', async () => {
  const id = newContactId();
  expect(await hubspot.deliver(inboundUrl, [hubspot.createContact(id, { firstname: 'Mary' })])).toBe(200);
  await eventually(async () => (await inboundEvents(id)).filter((row) => row.processedAt).length === 2 || undefined, 30_000);
  expect(await hubspot.deliver(inboundUrl, [hubspot.ownerChanged(id, '777')])).toBe(200);
  const [conflict] = await eventually(async () => eventsOfType('crm.owner_conflict', `hubspot:${id}`).then((list) => (list.length ? list : undefined)));
  expect(conflict.data).toEqual({
    client: `hubspot:${id}`,
    crm: 'hubspot',
    record_id: String(id),
    agent: 'a1',
    crm_owner_id: '501',
    crm_agent: 'a2',
    crm_owner_id_now: '777',
    followed: false,
    reason: 'rule',
  });
  expect(await activeAgents(`hubspot:${id}`)).toEqual(['a1']);
  expect(writesOf(id)).toHaveLength(1);
});

test.concurrent('when the connector\'s assignment ends, HubSpot\'s owner follows whoever holds the client: after an unassign, after an expiry, and left as is when nobody does', async () => {
  const id = newContactId();
  const clientId = `hubspot:${id}`;
  const processed = async () => (await inboundEvents(id)).every((row) => row.processedAt);
  const assign = (agent: string, dt_until?: string) => stack.api('POST', `/clients/${clientId}/assign-agents`, { token, body: { agents: [{ agent, ...(dt_until && { dt_until }) }] } });
  expect(await hubspot.deliver(inboundUrl, [hubspot.createContact(id, { firstname: 'Alan' })])).toBe(200);
  await eventually(async () => writesOf(id).length === 1 && (await inboundEvents(id)).length === 2 && (await processed()) || undefined, 30_000);

  // a2 assigned by hand beside the connector's a1, then a1 unassigned: a2's owner is written back.
  expect((await assign('a2')).status).toBe(200);
  expect((await stack.api('DELETE', `/clients/${clientId}/agents/a1`, { token })).status).toBe(200);
  await eventually(async () => writesOf(id).length === 2 || undefined, 30_000);
  expect(hubspot.contacts.get(String(id))!.hubspot_owner_id).toBe('777');

  // a1 back by hand (a2 still holds: nothing to write), then a2's assignment expires: a1's owner again.
  expect((await assign('a1')).status).toBe(200);
  expect((await assign('a2', new Date(Date.now() + 2_000).toISOString())).status).toBe(200);
  await eventually(async () => writesOf(id).length === 3 || undefined, 30_000);
  expect((await stack.api('GET', `/clients/${clientId}/agents?status=all`, { token })).body.assignments.find((a: any) => a.agent === 'a2' && a.status === 'expired')).toBeDefined();

  // Nobody holds the client: HubSpot's owner stays the last holder's.
  expect((await stack.api('DELETE', `/clients/${clientId}/agents/a1`, { token })).status).toBe(200);
  await eventually(async () => ((await inboundEvents(id)).filter((row) => row.kind === 'holder_changed' && row.processedAt).length === 3 ? true : undefined), 30_000);
  await eventually(processed, 30_000);
  expect(writesOf(id)).toEqual([
    { id: String(id), owner: '501', status: 200 },
    { id: String(id), owner: '777', status: 200 },
    { id: String(id), owner: '501', status: 200 },
  ]);
  expect(hubspot.contacts.get(String(id))!.hubspot_owner_id).toBe('501');
  const outcomes = (await inboundEvents(id)).map((row) => [row.kind, row.outcome]);
  expect(outcomes.filter(([kind]) => kind === 'holder_changed').map(([, outcome]) => outcome)).toEqual(['written', 'written', 'unheld']);
  // Each write's echo is recognised as ours: no conflict.
  expect(outcomes.filter(([kind]) => kind === 'owner_changed').map(([, outcome]) => outcome)).toEqual(['echo', 'echo', 'echo']);
  expect(await eventsOfType('crm.owner_conflict', clientId)).toEqual([]);
});

test.concurrent('a burst of contacts is answered at once and handed to their workflows a few at a time, each routed and written back', async () => {
  let inFlight = 0;
  let mostInFlight = 0;
  let handedOver = 0;
  const workflow = new Proxy(stack.temporal.workflow, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== 'signalWithStart' || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        try {
          await new Promise((resolve) => setTimeout(resolve, 300));
          return await value.apply(target, args);
        } finally {
          inFlight--;
          handedOver++;
        }
      };
    },
  });
  const temporal = new Proxy(stack.temporal, { get: (target, property, receiver) => (property === 'workflow' ? workflow : Reflect.get(target, property, receiver)) });
  const leads = { ...DEFAULT_ADMISSION.leads, limit: 2 };
  const api = await stack.startApi({ temporal, admission: createAdmissions({ ...DEFAULT_ADMISSION, leads }) });
  const ids = Array.from({ length: 6 }, newContactId);
  expect(await hubspot.deliver(`${originOf(api)}/integrations/hubspot/${stack.business}/webhook`, ids.map((id) => hubspot.createContact(id, { firstname: `Burst ${id}` })))).toBe(200);
  // Answered without waiting for the hand-overs (six of them, two at a time, take 0.9 s at least).
  expect(handedOver).toBeLessThan(ids.length);
  await eventually(async () => ids.every((id) => writesOf(id).some((w) => w.status === 200)), 30_000);
  expect(mostInFlight).toBe(2);
});
