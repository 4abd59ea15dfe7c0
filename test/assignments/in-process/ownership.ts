import { WorkflowNotFoundError } from '@temporalio/client';
import { clientWorkflowId } from '../../../src/domain';
import { startTestStack, type TestStack } from '../../support/stack';
import { eventually, expectProblem } from '../../support/helpers';

let stack: TestStack;
let otherBusiness: string;
let alice: string;
let bob: string;

/** Paths on the suite's business, or on another business segment for the same users. */
const here = (path: string) => path;
const there = (path: string) => `//ext/v2/${otherBusiness}${path}`;

beforeAll(async () => {
  stack = await startTestStack();
  otherBusiness = `${stack.business}-other`;
  alice = stack.token('alice');
  bob = stack.token('bob');
  for (const _id of ['a1', 'a2', 'a3', 'a4']) await stack.api('POST', '/agents', { token: alice, body: { _id } });
  await stack.api('POST', '/agents', { token: bob, body: { _id: 'b1' } });
  await stack.api('POST', '/clients', { token: bob, body: { _id: 'c-bob' } });
  await stack.api('POST', there('/agents'), { token: alice, body: { _id: 'a-elsewhere' } });
  await stack.api('POST', there('/agents'), { token: alice, body: { _id: 'a1' } });
});
afterAll(() => stack.stop());

let clientCounter = 0;
/** A fresh client of alice's in this business, so each test starts without assignments. */
async function newClient(token = alice, path = here): Promise<string> {
  const _id = `client-${++clientCounter}`;
  const res = await stack.api('POST', path('/clients'), { token, body: { _id } });
  expect(res.status).toBe(201);
  return _id;
}

const assign = (client: string, body: unknown, token = alice, path = here) =>
  stack.api('POST', path(`/clients/${client}/assign-agents`), { token, body });
const list = (client: string, status?: 'all', token = alice, path = here) =>
  stack.api('GET', path(`/clients/${client}/agents${status ? `?status=${status}` : ''}`), { token });
const unassign = (client: string, agent: string, token = alice, path = here) =>
  stack.api('DELETE', path(`/clients/${client}/agents/${agent}`), { token });

const notAuthorized = (agent: string) => `Agent ${agent} not found or not authorized`;

async function dbRows(ownerId: string, clientId: string, agentId: string, business = stack.business) {
  const client = await stack.prisma.client.findUniqueOrThrow({ where: { business_ownerId_id_liveSlot: { business, ownerId, id: clientId, liveSlot: true } } });
  const agent = await stack.prisma.agent.findUniqueOrThrow({ where: { business_ownerId_id_liveSlot: { business, ownerId, id: agentId, liveSlot: true } } });
  return stack.prisma.assignment.findMany({ where: { clientPk: client.pk, agentPk: agent.pk }, orderBy: { createdAt: 'asc' } });
}

/** Whether a run under the id is open (holding clocks): a client's run ends once its client holds no active assignment. */
async function workflowExists(workflowId: string): Promise<boolean> {
  try {
    return (await stack.temporal.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** The run that holds a pair's clock, its client's: readable ids, then the client's internal key (never the user id). */
async function expiryWorkflowOf(clientId: string, _agentId: string, ownerId = 'alice', business = stack.business): Promise<string> {
  const client = await stack.prisma.client.findUniqueOrThrow({ where: { business_ownerId_id_liveSlot: { business, ownerId, id: clientId, liveSlot: true } } });
  return clientWorkflowId({ business, clientId, clientPk: client.pk });
}

describe('the client must be the caller’s, in this business: otherwise 404', () => {
  test('rejects a client that does not exist', async () => {
    expectProblem(await assign('no-such-client', { agents: [{ agent: 'a1' }] }), 404, 'Client not found');
  });

  test('rejects a client of another user', async () => {
    expectProblem(await assign('c-bob', { agents: [{ agent: 'a1' }] }), 404, 'Client not found');
    expect(await list('c-bob', 'all', bob)).toMatchObject({ status: 200, body: { client: 'c-bob', assignments: [] } });
  });

  test('rejects another user even when both agents and the client id exist for that user', async () => {
    expectProblem(await assign('c-bob', { agents: [{ agent: 'b1' }] }, alice), 404, 'Client not found');
  });

  test('rejects the caller’s own client id under another business segment', async () => {
    const client = await newClient();
    expectProblem(await assign(client, { agents: [{ agent: 'a1' }] }, alice, there), 404, 'Client not found');
    expect((await list(client, 'all')).body.assignments).toEqual([]);
  });

  test.each([
    ['1200 characters long', 'x'.repeat(1200)],
    ['non-ASCII', 'caf%C3%A9'],
    ['an encoded slash', 'a%2Fb'],
  ])('rejects a client id that could never exist (%s) with 404, never 500', async (_name, client) => {
    expectProblem(await assign(client, { agents: [{ agent: 'a1' }] }), 404, 'Client not found');
  });

  test('rejects a client that exists only in another business of the caller', async () => {
    const client = await newClient(alice, there);
    expectProblem(await assign(client, { agents: [{ agent: 'a1' }] }), 404, 'Client not found');
  });
});

describe(`each agent must be the caller’s, in this business: otherwise 400 ${notAuthorized('{id}')}`, () => {
  test('rejects an unknown agent', async () => {
    const client = await newClient();
    expectProblem(await assign(client, { agents: [{ agent: 'ghost' }] }), 400, notAuthorized('ghost'));
  });

  test('rejects an agent of another user', async () => {
    const client = await newClient();
    expectProblem(await assign(client, { agents: [{ agent: 'b1' }] }), 400, notAuthorized('b1'));
  });

  test('rejects an agent of the same user in another business', async () => {
    const client = await newClient();
    expectProblem(await assign(client, { agents: [{ agent: 'a-elsewhere' }] }), 400, notAuthorized('a-elsewhere'));
  });

  test('names the first bad agent in request order', async () => {
    const client = await newClient();
    const res = await assign(client, { agents: [{ agent: 'a1' }, { agent: 'zz-ghost' }, { agent: 'b1' }, { agent: 'aa-ghost' }] });
    expectProblem(res, 400, notAuthorized('zz-ghost'));
    const other = await assign(client, { agents: [{ agent: 'a2' }, { agent: 'b1' }, { agent: 'aa-ghost' }] });
    expectProblem(other, 400, notAuthorized('b1'));
  });

  test('accepts an agent id that also exists in another business, using this business’s agent', async () => {
    const client = await newClient();
    const res = await assign(client, { agents: [{ agent: 'a1' }] });
    expect(res.status).toBe(200);
    expect(await dbRows('alice', client, 'a1')).toHaveLength(1);
  });
});

describe('all or nothing', () => {
  test('one good and one bad agent assigns nothing and leaves no run holding a clock', async () => {
    const client = await newClient();
    expectProblem(await assign(client, { agents: [{ agent: 'a1' }, { agent: 'ghost' }], ds_notes: 'should not stick' }), 400, notAuthorized('ghost'));

    expect(await list(client, 'all')).toMatchObject({ status: 200, body: { client, assignments: [] } });
    expect(await dbRows('alice', client, 'a1')).toEqual([]);
    // The client's run that answered the refusal holds no clock, and ends.
    expect(await eventually(async () => !(await workflowExists(await expiryWorkflowOf(client, 'a1'))))).toBe(true);

    // The same good agent alone succeeds, and its clock is in exactly the run looked for above.
    const ok = await assign(client, { agents: [{ agent: 'a1' }] });
    expect(ok.status).toBe(200);
    expect(ok.body.assignments[0].workflow_id).toBe(await expiryWorkflowOf(client, 'a1'));
    expect(await workflowExists(await expiryWorkflowOf(client, 'a1'))).toBe(true);
  });

  test('a rejected re-assignment leaves the active assignment as it was', async () => {
    const client = await newClient();
    expect((await assign(client, { agents: [{ agent: 'a2', dt_until: '2099-01-01' }], ds_notes: 'original' })).status).toBe(200);

    const rejected = await assign(client, { agents: [{ agent: 'a2', dt_until: '2120-01-01' }, { agent: 'b1' }], ds_notes: 'changed' });
    expectProblem(rejected, 400, notAuthorized('b1'));

    const listed = await list(client);
    expect(listed.body.assignments).toEqual([
      expect.objectContaining({ agent: 'a2', dt_until: '2099-01-01T00:00:00.000Z', ds_notes: 'original', status: 'active' }),
    ]);
  });

  test('a missing client assigns none of the caller’s agents anywhere', async () => {
    const before = await stack.prisma.assignment.count({ where: { workflowId: { startsWith: `client/${stack.business}/` } } });
    expectProblem(await assign('no-such-client', { agents: [{ agent: 'a3' }, { agent: 'a4' }] }), 404, 'Client not found');
    expect(await stack.prisma.assignment.count({ where: { workflowId: { startsWith: `client/${stack.business}/` } } })).toBe(before);
  });
});

describe('re-assignment', () => {
  test('re-assigning an active agent updates its dt_until and ds_notes, never a second active row', async () => {
    const client = await newClient();
    const first = await assign(client, { agents: [{ agent: 'a1', dt_until: '2099-01-01' }], ds_notes: 'first' });
    const second = await assign(client, { agents: [{ agent: 'a1', dt_until: '2100-02-03T04:05:06Z' }, { agent: 'a2' }], ds_notes: 'second' });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.assignments[0]).toEqual({
      agent: 'a1',
      dt_until: '2100-02-03T04:05:06.000Z',
      status: 'active',
      workflow_id: first.body.assignments[0].workflow_id,
    });

    const listed = await list(client, 'all');
    expect(listed.body.assignments).toEqual([
      expect.objectContaining({ agent: 'a1', dt_until: '2100-02-03T04:05:06.000Z', ds_notes: 'second', status: 'active' }),
      expect.objectContaining({ agent: 'a2', dt_until: '2143-06-23T00:00:00.000Z', ds_notes: 'second', status: 'active' }),
    ]);
    const rows = await dbRows('alice', client, 'a1');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'active', notes: 'second', dtUntil: new Date('2100-02-03T04:05:06Z') });
  });

  test('re-assigning without ds_notes clears the notes of that request’s assignments', async () => {
    const client = await newClient();
    await assign(client, { agents: [{ agent: 'a3' }], ds_notes: 'kept?' });
    const res = await assign(client, { agents: [{ agent: 'a3' }] });
    expect(res.body.ds_notes).toBeNull();
    expect((await list(client)).body.assignments[0].ds_notes).toBeNull();
  });

  test('concurrent assignments of the same agent leave exactly one active row', async () => {
    const client = await newClient();
    const results = await Promise.all(
      ['2099-01-01', '2099-02-01', '2099-03-01'].map((dt_until) => assign(client, { agents: [{ agent: 'a4', dt_until }] })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const rows = await dbRows('alice', client, 'a4');
    expect(rows.filter((r) => r.status === 'active')).toHaveLength(1);
    expect(rows).toHaveLength(1);
  });
});

describe('GET /clients/:_id/agents', () => {
  test('shows the active assignments with their details', async () => {
    const client = await newClient();
    await assign(client, { agents: [{ agent: 'a1', dt_until: '2099-12-31' }], ds_notes: 'VIP' });
    const res = await list(client);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      client,
      assignments: [
        {
          agent: 'a1',
          dt_until: '2099-12-31T00:00:00.000Z',
          status: 'active',
          ds_notes: 'VIP',
          workflow_id: await expiryWorkflowOf(client, 'a1'),
          assigned_at: expect.any(String),
          updated_at: expect.any(String),
          ended_at: null,
          ended_by: null,
          rotation: false,
          routed_by: null,
        },
      ],
    });
  });

  test('is 404 for another user’s client, in another business and for a missing client', async () => {
    const client = await newClient();
    await assign(client, { agents: [{ agent: 'a1' }] });
    expectProblem(await list(client, undefined, bob), 404, 'Client not found');
    expectProblem(await list(client, 'all', bob), 404, 'Client not found');
    expectProblem(await list(client, undefined, alice, there), 404, 'Client not found');
    expectProblem(await list('no-such-client'), 404, 'Client not found');
  });

  test('?status=active is the default', async () => {
    const client = await newClient();
    await assign(client, { agents: [{ agent: 'a2' }] });
    await unassign(client, 'a2');
    await assign(client, { agents: [{ agent: 'a3' }] });
    const explicit = await stack.api('GET', `/clients/${client}/agents?status=active`, { token: alice });
    expect(explicit.status).toBe(200);
    expect(explicit.body).toEqual((await list(client)).body);
    expect(explicit.body.assignments.map((a: { agent: string }) => a.agent)).toEqual(['a3']);
  });

  test.each(['bogus', 'expired', '', 'toString', 'constructor', '__proto__', 'active&status=all'])('rejects the status filter "%s" with 400', async (status) => {
    const client = await newClient();
    const res = await stack.api('GET', `/clients/${client}/agents?status=${status}`, { token: alice });
    expectProblem(res, 400, 'Invalid status: use active or all');
  });
});

describe('DELETE /clients/:_id/agents/:agent', () => {
  test('unassigns now: 200 unassigned, gone from the active list, unassigned in the history', async () => {
    const client = await newClient();
    await assign(client, { agents: [{ agent: 'a1' }, { agent: 'a2', dt_until: '2099-06-01' }], ds_notes: 'pair' });

    const res = await unassign(client, 'a2');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      client,
      agent: 'a2',
      dt_until: '2099-06-01T00:00:00.000Z',
      status: 'unassigned',
      ended_at: expect.any(String),
      ended_by: { actor: 'user', reason: 'api' },
      workflow_id: await expiryWorkflowOf(client, 'a2'),
    });
    expect(Math.abs(Date.parse(res.body.ended_at) - Date.now())).toBeLessThan(60_000);

    expect((await list(client)).body.assignments.map((a: { agent: string }) => a.agent)).toEqual(['a1']);
    const history = (await list(client, 'all')).body.assignments;
    expect(history).toEqual([
      expect.objectContaining({ agent: 'a1', status: 'active', ended_at: null, ended_by: null }),
      expect.objectContaining({ agent: 'a2', status: 'unassigned', ended_at: res.body.ended_at, ended_by: { actor: 'user', reason: 'api' } }),
    ]);
  });

  test('a second DELETE of the same agent is 404', async () => {
    const client = await newClient();
    await assign(client, { agents: [{ agent: 'a3' }] });
    expect((await unassign(client, 'a3')).status).toBe(200);
    expectProblem(await unassign(client, 'a3'), 404, 'Agent a3 is not assigned to this client');
  });

  test('an agent that was never assigned to the client is 404', async () => {
    const client = await newClient();
    await assign(client, { agents: [{ agent: 'a1' }] });
    expectProblem(await unassign(client, 'a4'), 404, 'Agent a4 is not assigned to this client');
    expectProblem(await unassign(client, 'ghost'), 404, 'Agent ghost is not assigned to this client');
  });

  test('another user’s client, another business and a missing client are 404, and the assignment stays active', async () => {
    const client = await newClient();
    await assign(client, { agents: [{ agent: 'a1' }] });
    expectProblem(await unassign(client, 'a1', bob), 404, 'Client not found');
    expectProblem(await unassign(client, 'a1', alice, there), 404, 'Client not found');
    expectProblem(await unassign('no-such-client', 'a1'), 404, 'Client not found');
    expect((await list(client)).body.assignments).toEqual([expect.objectContaining({ agent: 'a1', status: 'active' })]);
  });

  test('assigning again after an unassignment opens a new period and keeps the old one in the history', async () => {
    const client = await newClient();
    await assign(client, { agents: [{ agent: 'a2', dt_until: '2099-01-01' }] });
    await unassign(client, 'a2');
    const again = await assign(client, { agents: [{ agent: 'a2', dt_until: '2101-01-01' }] });
    expect(again.status).toBe(200);

    expect((await list(client)).body.assignments).toEqual([
      expect.objectContaining({ agent: 'a2', status: 'active', dt_until: '2101-01-01T00:00:00.000Z' }),
    ]);
    expect((await list(client, 'all')).body.assignments.map((a: { status: string }) => a.status)).toEqual(['unassigned', 'active']);
    const rows = await dbRows('alice', client, 'a2');
    expect(rows.map((r) => r.status)).toEqual(['unassigned', 'active']);
  });
});

test('the longest accepted ids (user, business, client, agent) still get their assignment and expiry workflow', async () => {
  const ownerId = '@'.repeat(200);
  const token = stack.token(ownerId);
  const business = `${stack.business}-${'b'.repeat(64)}`.slice(0, 64);
  const at = (path: string) => `//ext/v2/${business}${path}`;
  const clientId = 'c'.repeat(128);
  const agentId = 'a'.repeat(128);
  await stack.api('POST', at('/clients'), { token, body: { _id: clientId } });
  await stack.api('POST', at('/agents'), { token, body: { _id: agentId } });
  const res = await assign(clientId, { agents: [{ agent: agentId }] }, token, at);
  expect(res.status).toBe(200);
  const workflowId = await expiryWorkflowOf(clientId, agentId, ownerId, business);
  expect(workflowId).not.toContain('@');
  expect(res.body.assignments[0].workflow_id).toBe(workflowId);
  expect(await workflowExists(workflowId)).toBe(true);
});
