import { eventually } from '../../support/helpers';
import { startFakeSalesforce, type FakeSalesforce } from '../../../src/stack/crm-fakes/salesforce';
import { connectedStack } from '../../support/crm';
import type { TestStack } from '../../support/stack';

/*
 * Salesforce end to end: its Outbound Message sender posts a SOAP envelope to the inbound URL the
 * connector answered (its secret the last segment); the lead's workflow reads the Lead through jsforce from the fake REST API
 * (renewing the expired access token with the refresh token), makes the client, assigns the
 * connector's agent and writes OwnerId back with `Sforce-Auto-Assign: FALSE`. Each `test.concurrent` test
 * owns its Lead: they run side by side; the sweep (it counts every Lead of the fake) and the two that
 * change the connector and its inbound URL run alone after them (docs/design.md, "Suite: concurrent tests
 * inside a file").
 */

let stack: TestStack;
let salesforce: FakeSalesforce;
let token: string;
let inboundUrl: string;
const OWNER_A1 = '005000000000001AAA';

beforeAll(async () => {
  salesforce = await startFakeSalesforce();
  ({ stack, token, inboundUrl } = await connectedStack('salesforce', {
    env: { SALESFORCE_API_URL: salesforce.url },
    agents: ['a1'],
    body: {
      agents: ['a1'],
      settings: {
        organization_id: salesforce.organizationId,
        instance_url: 'https://acme.my.salesforce.com',
        access_token: salesforce.accessToken,
        refresh_token: salesforce.refreshToken,
        client_id: salesforce.clientId,
        client_secret: salesforce.clientSecret,
      },
      agent_map: { [OWNER_A1]: 'a1' },
    },
  }));
  expect(inboundUrl).toMatch(new RegExp(`/integrations/salesforce/${stack.business}/outbound-message/[A-Za-z0-9_-]{43}$`));
});
afterAll(async () => {
  await stack?.stop();
  await salesforce?.stop();
});

const writesOf = (id: string) => salesforce.writes.filter((w) => w.id === id);
const activeAgents = async (clientId: string) => (await stack.api('GET', `/clients/${clientId}/agents`, { token })).body.assignments?.map((a: any) => a.agent);
const inboundEvents = (id: string) => stack.prisma.crmInboundEvent.findMany({ where: { business: stack.business, crm: 'salesforce', recordId: id } });

test.concurrent('an Outbound Message makes a client, assigns the agent, writes OwnerId without the assignment rule, and is answered with its Ack', async () => {
  const id = salesforce.newLeadId();
  salesforce.createLead(id, { FirstName: 'Grace', LastName: 'Hopper', Phone: '(415) 555-0199', MobilePhone: '+1 415 555 0123' });
  const answer = await salesforce.send(inboundUrl, salesforce.outboundMessage([id]));
  expect(answer.status).toBe(200);
  expect(answer.contentType).toMatch(/^text\/xml/);
  expect(answer.body).toContain('<Ack>true</Ack>');
  expect(answer.body).toContain('xmlns="http://soap.sforce.com/2005/09/outbound"');

  await eventually(async () => writesOf(id).length > 0 || undefined, 30_000);
  const clientId = `salesforce:${id}`;
  expect((await stack.api('GET', `/clients/${clientId}`, { token })).body).toMatchObject({ _id: clientId, name: 'Grace Hopper', phone: '+14155550123' });
  expect(await activeAgents(clientId)).toEqual(['a1']);
  expect(writesOf(id)).toEqual([{ id, owner: OWNER_A1, autoAssign: 'FALSE', status: 204 }]);
  // The header kept the org's assignment rule from taking the Lead over.
  expect(salesforce.leads.get(id)!.OwnerId).toBe(OWNER_A1);
  expect(salesforce.refreshes).toBeGreaterThan(0);
  await eventually(async () => ((await inboundEvents(id))[0]?.outcome === 'routed' ? true : undefined), 30_000);
});

test.concurrent('a message from another org is a 401 and nothing is stored', async () => {
  const id = salesforce.newLeadId();
  salesforce.createLead(id, { LastName: 'Mallory', Phone: '+14155550177' });
  const answer = await salesforce.send(inboundUrl, salesforce.outboundMessage([id], { organizationId: '00D000000000042AAA' }));
  expect(answer.status).toBe(401);
  expect(answer.body).not.toContain('<Ack>');
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(await inboundEvents(id)).toEqual([]);
  expect((await stack.api('GET', `/clients/salesforce:${id}`, { token })).status).toBe(404);
  expect(writesOf(id)).toEqual([]);
});

test.concurrent('the same notification delivered five times (Salesforce retrying) is acknowledged each time and makes one decision and one write', async () => {
  const id = salesforce.newLeadId();
  salesforce.createLead(id, { FirstName: 'Alan', LastName: 'Turing', Phone: '+442071234567' });
  const envelope = salesforce.outboundMessage([id]);
  const answers = await Promise.all([0, 1, 2].map(() => salesforce.send(inboundUrl, envelope)));
  for (const _ of [3, 4]) answers.push(await salesforce.send(inboundUrl, envelope));
  for (const answer of answers) {
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('<Ack>true</Ack>');
  }
  await eventually(async () => writesOf(id).length > 0 || undefined, 30_000);
  await eventually(async () => ((await inboundEvents(id))[0]?.processedAt ? true : undefined), 30_000);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(writesOf(id)).toHaveLength(1);
  expect(await inboundEvents(id)).toHaveLength(1);
  expect(await stack.prisma.crmLead.count({ where: { business: stack.business, crm: 'salesforce', recordId: id } })).toBe(1);
  expect(await stack.prisma.assignment.count({ where: { client: { business: stack.business, id: `salesforce:${id}` } } })).toBe(1);
});

test('the catch-up sweep routes a Lead whose Outbound Message never came, once', async () => {
  const id = salesforce.newLeadId();
  salesforce.createLead(id, { FirstName: 'Missed', LastName: 'Lead', Phone: '+14155550188' });
  // Every Lead of the fake no notification brought (the one refused above too) is routed by the sweep.
  const brought = new Set((await stack.prisma.crmInboundEvent.findMany({ where: { business: stack.business, crm: 'salesforce' } })).map((e) => e.recordId));
  const missed = [...salesforce.leads.keys()].filter((lead) => !brought.has(lead));
  expect(missed).toContain(id);
  const first = await stack.api('POST', '/integrations/salesforce/sync', { token });
  expect(first.status).toBe(200);
  expect(first.body).toEqual({ listed: salesforce.leads.size, recorded: missed.length, resumed: 0 });
  await eventually(async () => writesOf(id).length > 0 || undefined, 30_000);
  expect(writesOf(id)).toEqual([{ id, owner: OWNER_A1, autoAssign: 'FALSE', status: 204 }]);
  expect((await stack.api('POST', '/integrations/salesforce/sync', { token })).body).toEqual({ listed: salesforce.leads.size, recorded: 0, resumed: 0 });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(writesOf(id)).toHaveLength(1);
});

const post = async (url: string, body: string, contentType = 'text/xml; charset=utf-8') => {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: response.status, body: await response.text(), retryAfter: response.headers.get('retry-after') };
};
const withoutToken = () => inboundUrl.replace(/\/[^/]+$/, '');

test.concurrent('the inbound URL without its secret, with another, or with a guessed one is a 401 before anything is read or stored', async () => {
  const id = salesforce.newLeadId();
  salesforce.createLead(id, { LastName: 'Forged', Phone: '+14155550166' });
  const envelope = salesforce.outboundMessage([id]);
  for (const url of [withoutToken(), `${withoutToken()}/${'A'.repeat(43)}`, `${withoutToken()}/x`, `${inboundUrl}x`]) {
    const answer = await post(url, envelope);
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).detail).toMatch(/^Invalid inbound URL/);
  }
  // Another business's connector's secret does not open this one's door either.
  expect((await post(inboundUrl.replace(stack.business, `${stack.business}x`), envelope)).status).toBe(401);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(await inboundEvents(id)).toEqual([]);
  expect(writesOf(id)).toEqual([]);
});

test('the secret is shown once: GET and a later PUT answer the URL with {token}, and the URL keeps working', async () => {
  const got = await stack.api('GET', '/integrations/salesforce', { token });
  expect(got.body.inbound_url).toBe(`${withoutToken()}/{token}`);
  const again = await stack.api('PUT', '/integrations/salesforce', { token, body: { agents: ['a1'], agent_map: { [OWNER_A1]: 'a1' } } });
  expect(again.status).toBe(200);
  expect(again.body.inbound_url).toBe(`${withoutToken()}/{token}`);
  const stored = await stack.prisma.crmConnector.findUniqueOrThrow({ where: { business_crm: { business: stack.business, crm: 'salesforce' } } });
  expect(stored.inboundTokenHash).toMatch(/^[0-9a-f]{64}$/);
  expect(JSON.stringify(stored)).not.toContain(inboundUrl.split('/').pop());
  const id = salesforce.newLeadId();
  salesforce.createLead(id, { LastName: 'Kept', Phone: '+14155550155' });
  expect((await salesforce.send(inboundUrl, salesforce.outboundMessage([id]))).status).toBe(200);
});

test('rotate-inbound-token answers a new URL; the old one is a 401 at once', async () => {
  const rotated = await stack.api('POST', '/integrations/salesforce/rotate-inbound-token', { token });
  expect(rotated.status).toBe(200);
  const newUrl = rotated.body.inbound_url as string;
  expect(newUrl).toMatch(new RegExp(`/integrations/salesforce/${stack.business}/outbound-message/[A-Za-z0-9_-]{43}$`));
  expect(newUrl).not.toBe(inboundUrl);
  const id = salesforce.newLeadId();
  salesforce.createLead(id, { LastName: 'Rotated', Phone: '+14155550144' });
  const envelope = salesforce.outboundMessage([id]);
  expect((await salesforce.send(inboundUrl, envelope)).status).toBe(401);
  expect((await salesforce.send(newUrl, envelope)).status).toBe(200);
  inboundUrl = newUrl;
  expect((await stack.api('POST', '/integrations/hubspot/rotate-inbound-token', { token })).status).toBe(404);
  expect((await stack.api('POST', '/integrations/salesforce/rotate-inbound-token', { token: stack.token('someone-else') })).status).toBe(404);
});

test.concurrent('an envelope with a DOCTYPE, an entity of its own, a processing instruction, or its OrganizationId in a comment or CDATA is a 400; nothing is stored', async () => {
  const id = salesforce.newLeadId();
  salesforce.createLead(id, { LastName: 'Xml', Phone: '+14155550133' });
  const envelope = salesforce.outboundMessage([id]);
  const org = `<OrganizationId>${salesforce.organizationId}</OrganizationId>`;
  const shapes = {
    doctype: envelope.replace('?>', '?><!DOCTYPE lol [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'),
    entity: envelope.replace(`<sf:Id>${id}`, `<sf:Id>&b;${id}`),
    pi: envelope.replace('?>', '?><?xml-stylesheet href="x"?>'),
    comment: envelope.replace(org, `<!--${org}-->`),
    cdata: envelope.replace(org, `<ActionId><![CDATA[${org}]]></ActionId>`),
  };
  for (const [shape, body] of Object.entries(shapes)) {
    const answer = await post(inboundUrl, body);
    expect({ shape, status: answer.status }).toEqual({ shape, status: 400 });
    expect(JSON.parse(answer.body).detail).toMatch(/^Invalid body: must be an Outbound Message/);
  }
  expect((await post(inboundUrl, shapes.doctype)).body).toContain('a DOCTYPE is not accepted');
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(await inboundEvents(id)).toEqual([]);
});
