import { randomInt } from 'node:crypto';
import { Client, defaultPayloadConverter } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { generatePayloadKey, parsePayloadKeys } from '../../../src/config/payload-keys';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING } from '../../../src/temporal-client/payload-codec';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';
import { eventually, expectProblem, waitForStatus } from '../../support/helpers';
import { temporalTextOf, workflowIdsOfBusiness } from '../../support/history';

/*
 * DELETE /clients/{_id} erases the client: its messages not yet sent are canceled, its assignments and
 * rotation end, its phone, name and the texts about it leave every table of PostgreSQL, and Temporal
 * never held them (checked on the decoded payloads too, with the payload codec on).
 */

const KEY = generatePayloadKey('erasure');
const codec = new AesGcmPayloadCodec(parsePayloadKeys(KEY));

let stack: TestStack;
let raw: Client;
beforeAll(async () => {
  stack = await startTestStack({ payloadKeys: KEY, rotationMinPeriodMs: 1000 });
  raw = new Client({ connection: stack.temporal.connection, namespace: stack.temporal.options.namespace });
});
afterAll(() => stack.stop());

/** A phone and a name no other suite on the shared database uses. */
const uniquePhone = () => `+1415${randomInt(1_000_000, 9_999_999)}`;
const uniqueSurname = () => `Quux${uniqueName('x').replace(/[^a-z0-9]/gi, '')}`;

/** Every text, varchar, json and array column of every table, as `table.column`. */
async function textColumns(): Promise<{ table: string; column: string }[]> {
  return stack.prisma.$queryRaw`
    SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
     WHERE table_schema = current_schema() AND data_type IN ('text', 'character varying', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED')`;
}

/** The `table.column`s of PostgreSQL where any of `needles` appears. */
async function foundInPostgres(needles: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const { table, column } of await textColumns()) {
    for (const needle of needles) {
      const [{ n }] = await stack.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM "${table}" WHERE "${column}"::text ILIKE '%' || $1 || '%'`, needle);
      if (n > 0) found.push(`${table}.${column} holds ${needle}`);
    }
  }
  return found;
}

/** Every payload of a run's history, decoded with the service's codec, as text. */
async function decodedPayloadsOf(workflowId: string): Promise<string> {
  const payloads: Payload[] = [];
  const walk = (value: unknown) => {
    if (!value || typeof value !== 'object' || value instanceof Uint8Array) return;
    if (Array.isArray(value)) return value.forEach(walk);
    const record = value as Record<string, unknown>;
    if (record.metadata && typeof record.metadata === 'object' && 'data' in record) payloads.push(record as Payload);
    else Object.values(record).forEach(walk);
  };
  walk((await raw.workflow.getHandle(workflowId).fetchHistory()).events);
  const encrypted = payloads.filter((p) => Buffer.from(p.metadata?.encoding ?? []).toString() === ENCRYPTED_ENCODING);
  const decoded = await codec.decode(encrypted);
  return decoded.map((p) => JSON.stringify(defaultPayloadConverter.fromPayload(p)) ?? '').join('\n');
}

test('DELETE /clients/{_id} leaves no phone or name in PostgreSQL or Temporal, and ends what the client was part of', async () => {
  const user = uniqueName('owner');
  const token = stack.token(user);
  const phone = uniquePhone();
  const otherPhone = uniquePhone();
  const surname = uniqueSurname();
  const name = `Ada ${surname}`;
  const needles = [phone, phone.slice(2), otherPhone, surname];

  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c1', name, phone, timezone: 'Europe/London' } })).status).toBe(201);
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'kept', name: 'Grace Hopper', phone: '+14155550100' } })).status).toBe(201);
  for (const _id of ['a1', 'a2', 'a3', 'a4']) await stack.api('POST', '/agents', { token, body: { _id } });
  const webhook = await stack.api('POST', '/webhooks', { token, body: { url: 'http://127.0.0.1:9/hooks', events: ['client.*', 'assignment.*', 'rotation.*'] } });
  expect(webhook.status).toBe(201);

  const assigned = await stack.api('POST', '/clients/c1/assign-agents', {
    token,
    body: { agents: [{ agent: 'a1' }, { agent: 'a2', dt_until: '2099-01-01' }], ds_notes: `Lead ${name}, call ${phone}` },
  });
  expect(assigned.status).toBe(200);
  await stack.api('POST', '/clients/kept/assign-agents', { token, body: { agents: [{ agent: 'a4' }] } });
  const rotation = await stack.api('PUT', '/clients/c1/rotation', { token, body: { agents: ['a3', 'a2'], period: '1h', ds_notes: `Rotation for ${name}` } });
  expect(rotation.status).toBe(201);

  // a4 holds another client, the policy's capacity is one: c1 waits in the policy's queue, its decision noting the name.
  expect((await stack.api('PUT', '/teams/sales', { token, body: { members: [{ agent: 'a4' }] } })).status).toBe(200);
  expect((await stack.api('PUT', '/routing-policies/leads', { token, body: { team: 'sales', strategy: 'round_robin', capacity: 1 } })).status).toBe(200);
  expect((await stack.api('POST', '/clients/c1/route', { token, body: { policy: 'leads', notes: `Inbound lead ${name}` } })).status).toBe(202);
  const sent = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: `Hello ${name}, your order has shipped.` } });
  const toOther = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', client_phone: otherPhone, text_message: 'To the office line' } });
  const later = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: `See you tomorrow, ${surname}`, delay: 'PT1H' } });
  const keptMessage = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'kept', text_message: 'Hello Grace', delay: 'PT1H' } });
  await waitForStatus(stack.api, token, sent.body._id, 'sent');
  await waitForStatus(stack.api, token, toOther.body._id, 'sent');
  // The personal data is there before: the scan can find it.
  expect((await foundInPostgres(needles)).length).toBeGreaterThan(0);

  const erased = await stack.api('DELETE', '/clients/c1', { token });
  expect(erased.status).toBe(204);
  expect(erased.body).toBeUndefined();

  // Gone for the API; a second DELETE is a 404.
  expectProblem(await stack.api('GET', '/clients/c1', { token }), 404, 'Client not found');
  expect((await stack.api('GET', '/routing-policies/leads/queue', { token })).body.queue).toEqual([]);
  expectProblem(await stack.api('DELETE', '/clients/c1', { token }), 404, 'Client not found');
  expect((await stack.api('GET', '/clients', { token })).body.clients.map((c: { _id: string }) => c._id)).toEqual(['kept']);

  // The message not yet sent was canceled through the cancel path: its run ended.
  const canceled = await stack.api('GET', `/messages/${later.body._id}`, { token });
  expect(canceled.body).toEqual(
    expect.objectContaining({ status: 'canceled', canceled_by: { actor: 'user', reason: 'client_deleted' }, client: 'c1', client_phone: null, client_name: null, text_message: '' }),
  );
  await eventually(async () => (await stack.temporal.workflow.getHandle(later.body.workflow_id).describe()).status.name !== 'RUNNING');
  // Sent messages keep their ids, times and statuses.
  const kept = await stack.api('GET', `/messages/${sent.body._id}`, { token });
  expect(kept.body).toEqual(expect.objectContaining({ _id: sent.body._id, status: 'sent', client_phone: null, client_name: null, to: null, text_message: '', sent_at: expect.any(String) }));

  // Assignments ended with ended_by client_deleted, the client's run ended; the rotation stopped.
  const rows = await stack.prisma.assignment.findMany({ where: { client: { business: stack.business, ownerId: user, id: 'c1' } } });
  expect(rows.length).toBeGreaterThanOrEqual(3);
  for (const row of rows) expect(row).toEqual(expect.objectContaining({ status: 'unassigned', endedBy: 'client_deleted', notes: null }));
  for (const a of assigned.body.assignments) await expect(stack.temporal.workflow.getHandle(a.workflow_id).result()).resolves.toEqual({ outcome: 'idle' });
  // The rotation's boundaries were the client's run's too: one run, ended.
  expect(rotation.body.workflow_id).toBe(assigned.body.assignments[0].workflow_id);
  await expect(stack.temporal.workflow.getHandle(rotation.body.workflow_id).result()).resolves.toEqual({ outcome: 'idle' });

  // The events: assignment.unassigned and rotation.stopped with the reason, then client.deleted, in the feed and to the webhook.
  const feed = (await stack.api('GET', '/events?limit=100', { token })).body.events as { type: string; data: any }[];
  const ends = feed.filter((e) => e.data.reason === 'client_deleted');
  expect(ends.map((e) => e.type).sort()).toEqual([...rows.map(() => 'assignment.unassigned'), 'message.canceled', 'rotation.stopped'].sort());
  for (const e of ends.filter((e) => e.type === 'assignment.unassigned')) expect(e.data.ended_by).toEqual({ actor: 'user', reason: 'client_deleted' });
  const deleted = feed.filter((e) => e.type === 'client.deleted');
  expect(deleted).toEqual([expect.objectContaining({ data: { client: 'c1', deleted_at: expect.any(String), reason: 'api' } })]);
  expect(feed[feed.length - 1].type).toBe('client.deleted');
  expect((await stack.api('GET', '/events?type=client.*', { token })).body.events).toHaveLength(1);
  const deliveries = await stack.prisma.webhookDelivery.count({ where: { event: { type: 'client.deleted', business: stack.business, ownerId: user } } });
  expect(deliveries).toBe(1);

  // No trace in PostgreSQL: every text and json column of every table.
  expect(await foundInPostgres(needles)).toEqual([]);

  // None in Temporal: ids, search attributes, memos, summaries, histories, and every payload decoded.
  // The runs that touched the client, once the visibility store lists them all (and every other run of the business beside them).
  const touched = [sent.body.workflow_id, toOther.body.workflow_id, later.body.workflow_id, rotation.body.workflow_id, ...assigned.body.assignments.map((a: any) => a.workflow_id)];
  const runs = await eventually(async () => {
    const listed = await workflowIdsOfBusiness(stack.temporal, stack.business, touched.length);
    return touched.every((id) => listed.includes(id)) ? listed : undefined;
  });
  for (const id of runs) {
    const text = `${await temporalTextOf(stack.temporal, id)}\n${await decodedPayloadsOf(id)}`;
    for (const needle of needles) expect({ id, found: text.includes(needle) }).toEqual({ id, found: false });
  }
  // The decoding is real: a message's decoded input names it.
  expect(await decodedPayloadsOf(sent.body.workflow_id)).toContain(sent.body._id);

  // The other client is untouched, and the id is free for a new client.
  expect((await stack.api('GET', '/clients/kept', { token })).body).toEqual(expect.objectContaining({ name: 'Grace Hopper', phone: '+14155550100' }));
  expect((await stack.api('GET', `/messages/${keptMessage.body._id}`, { token })).body).toEqual(expect.objectContaining({ status: 'scheduled', client_phone: '+14155550100' }));
  expect((await stack.api('GET', '/clients/kept/agents', { token })).body.assignments).toHaveLength(1);
  const again = await stack.api('POST', '/clients', { token, body: { _id: 'c1', name: 'Someone else' } });
  expect(again.status).toBe(201);
  expect((await stack.api('GET', '/clients/c1/messages', { token })).body.messages).toEqual([]);
  expect((await stack.api('GET', '/clients/c1/agents?status=all', { token })).body.assignments).toEqual([]);
});

test('another user\'s or another business\'s client cannot be erased: the same 404 as a missing one, and it keeps everything', async () => {
  const alice = stack.token(uniqueName('alice'));
  const bob = stack.token(uniqueName('bob'));
  await stack.api('POST', '/clients', { token: alice, body: { _id: 'c1', name: 'Ada', phone: '+14155550100' } });
  expectProblem(await stack.api('DELETE', '/clients/c1', { token: bob }), 404, 'Client not found');
  expectProblem(await stack.api('DELETE', `//ext/v2/${stack.business}-other/clients/c1`, { token: alice }), 404, 'Client not found');
  expectProblem(await stack.api('DELETE', '/clients/nobody', { token: alice }), 404, 'Client not found');
  expectProblem(await stack.api('DELETE', `/clients/${encodeURIComponent('bad id')}`, { token: alice }), 404, 'Client not found');
  expect((await stack.api('GET', '/clients/c1', { token: alice })).body).toEqual(expect.objectContaining({ name: 'Ada', phone: '+14155550100' }));
});
