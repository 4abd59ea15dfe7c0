import { randomInt } from 'node:crypto';
import { eventually } from '../support/helpers';
import { hubspotSuite } from '../support/crm';

/*
 * Erasing a CRM lead's client (`DELETE /clients/hubspot:<id>`) scrubs what the CRM side kept of its
 * record — the decision and its owners, the record's events, the assign-agents requests, the workflow
 * ids naming it — and remembers the record only by a keyed digest: its later events are recorded as
 * ignored and never make the client again, nor does a sweep.
 */

const suite = hubspotSuite();

const rowsNaming = async (recordId: number) => {
  const { stack } = suite;
  const like = `%${recordId}%`;
  const [counts] = await stack.prisma.$queryRaw<{ leads: number; events: number; requests: number; workflows: number; decisions: number }[]>`
    SELECT (SELECT count(*)::int FROM crm_leads WHERE business = ${stack.business} AND (record_id LIKE ${like} OR client_id LIKE ${like})) AS leads,
           (SELECT count(*)::int FROM crm_inbound_events WHERE business = ${stack.business} AND (record_id LIKE ${like} OR event_key LIKE ${like})) AS events,
           (SELECT count(*)::int FROM assign_requests WHERE business = ${stack.business} AND workflow_id LIKE ${like}) AS requests,
           (SELECT count(*)::int FROM assignments a JOIN clients c ON c.pk = a.client_pk WHERE c.business = ${stack.business} AND a.workflow_id LIKE ${like}) AS workflows,
           (SELECT count(*)::int FROM routing_decisions WHERE business = ${stack.business} AND idempotency_key LIKE ${like}) AS decisions`;
  return counts;
};

test('erasing a lead\'s client scrubs its record from the CRM tables; the record\'s later events are ignored and never bring the client back', async () => {
  const { stack, hubspot, token, inboundUrl } = suite;
  const recordId = randomInt(900_000, 999_999);
  const phone = `+1415${randomInt(1_000_000, 9_999_999)}`;
  expect(await hubspot.deliver(inboundUrl, [hubspot.createContact(recordId, { firstname: 'Erin', lastname: 'Erasable', phone })])).toBe(200);
  await eventually(async () => hubspot.writes.some((w) => w.id === String(recordId) && w.status === 200) || undefined, 30_000);
  const before = await rowsNaming(recordId);
  // The lead's traces are there to scrub: its decision, its event, its assign request and assignment's workflow id.
  expect(before).toEqual({ leads: 1, events: 1, requests: 1, workflows: 1, decisions: 0 });

  expect((await stack.api('DELETE', `/clients/hubspot:${recordId}`, { token })).status).toBe(204);
  expect(await rowsNaming(recordId)).toEqual({ leads: 0, events: 0, requests: 0, workflows: 0, decisions: 0 });
  const tombstones = await stack.prisma.crmErasedRecord.findMany({ where: { business: stack.business, crm: 'hubspot' } });
  expect(tombstones).toHaveLength(1);
  expect(tombstones[0].digest).not.toContain(String(recordId));

  // HubSpot sends the contact's creation again (its name and phone changed), then a change of owner.
  expect(await hubspot.deliver(inboundUrl, [hubspot.createContact(recordId, { firstname: 'Erin', lastname: 'Back', phone })])).toBe(200);
  expect(await hubspot.deliver(inboundUrl, [hubspot.ownerChanged(recordId, '777')])).toBe(200);
  const ignored = await eventually(async () => {
    const rows = await stack.prisma.crmInboundEvent.findMany({ where: { business: stack.business, crm: 'hubspot', outcome: 'erased' } });
    return rows.length >= 2 ? rows : undefined;
  }, 30_000);
  expect(ignored.every((row) => row.recordId === '' && row.processedAt !== null && !row.eventKey.includes(String(recordId)))).toBe(true);
  expect(await stack.prisma.crmInboundEvent.count({ where: { business: stack.business, crm: 'hubspot', processedAt: null } })).toBe(0);

  expect((await stack.api('GET', `/clients/hubspot:${recordId}`, { token })).status).toBe(404);
  expect(await stack.prisma.client.count({ where: { business: stack.business, phone } })).toBe(0);
  expect(await stack.prisma.client.count({ where: { business: stack.business, name: { contains: 'Erasable' } } })).toBe(0);
  expect(await stack.prisma.client.count({ where: { business: stack.business, name: { contains: 'Back' } } })).toBe(0);
  expect(await rowsNaming(recordId)).toEqual({ leads: 0, events: 0, requests: 0, workflows: 0, decisions: 0 });
  expect(hubspot.writes.filter((w) => w.id === String(recordId))).toHaveLength(1);

  // The catch-up sweep lists the record (created in the last day) and leaves it alone.
  const swept = await stack.api('POST', '/integrations/hubspot/sync', { token });
  expect(swept.status).toBe(200);
  expect(swept.body).toEqual(expect.objectContaining({ recorded: 0 }));
  expect(await rowsNaming(recordId)).toEqual({ leads: 0, events: 0, requests: 0, workflows: 0, decisions: 0 });
});

test('another record of the same connector is routed as before, and a client of that id made by hand is not remembered as erased', async () => {
  const { stack, hubspot, token, inboundUrl } = suite;
  const recordId = randomInt(800_000, 899_999);
  expect(await hubspot.deliver(inboundUrl, [hubspot.createContact(recordId, { firstname: 'Kept', lastname: 'Lead', phone: `+1415${randomInt(1_000_000, 9_999_999)}` })])).toBe(200);
  await eventually(async () => hubspot.writes.some((w) => w.id === String(recordId) && w.status === 200) || undefined, 30_000);
  expect((await stack.api('GET', `/clients/hubspot:${recordId}`, { token })).body).toMatchObject({ name: 'Kept Lead' });

  // Another user's client that merely has a CRM-like id: erasing it leaves the connector's lead alone.
  const other = stack.token('someone-else');
  expect((await stack.api('POST', '/clients', { token: other, body: { _id: `hubspot:${recordId}`, name: 'Namesake' } })).status).toBe(201);
  const tombstones = await stack.prisma.crmErasedRecord.count({ where: { business: stack.business } });
  expect((await stack.api('DELETE', `/clients/hubspot:${recordId}`, { token: other })).status).toBe(204);
  expect(await stack.prisma.crmErasedRecord.count({ where: { business: stack.business } })).toBe(tombstones);
  expect((await rowsNaming(recordId)).leads).toBe(1);
});
