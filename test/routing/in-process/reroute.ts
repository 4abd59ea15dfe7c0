import { randomUUID } from 'node:crypto';
import { expectProblem } from '../../support/helpers';
import { startTestStack, type TestStack } from '../../support/stack';

/* POST /agents/{_id}/reroute: a rep who leaves; every client it holds is routed again, never back to it. */

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

async function setUp(policy: Record<string, unknown>) {
  const token = stack.token(`user-${randomUUID()}`);
  for (const _id of ['a1', 'a2', 'a3']) expect((await stack.api('POST', '/agents', { token, body: { _id } })).status).toBe(201);
  for (const _id of ['c1', 'c2', 'c3', 'c4']) expect((await stack.api('POST', '/clients', { token, body: { _id } })).status).toBe(201);
  expect((await stack.api('PUT', '/teams/sales', { token, body: { members: [{ agent: 'a1' }, { agent: 'a2' }, { agent: 'a3' }] } })).status).toBe(200);
  expect((await stack.api('PUT', '/routing-policies/sales', { token, body: { team: 'sales', ...policy } })).status).toBe(200);
  return token;
}
const owners = async (token: string, client: string) => (await stack.api('GET', `/clients/${client}/agents`, { token })).body.assignments.map((a: { agent: string }) => a.agent);

test('every routed client of the agent goes to another member, a hand-assigned one stays, and the agent holds only that one', async () => {
  const token = await setUp({ capacity: 2 });
  // Round robin: c1 → a1, c2 → a2, c3 → a3, c4 → a1.
  for (const c of ['c1', 'c2', 'c3', 'c4']) expect((await stack.api('POST', `/clients/${c}/route`, { token, body: { policy: 'sales' } })).status).toBe(200);
  expect(await owners(token, 'c4')).toEqual(['a1']);
  const manual = await stack.api('POST', '/clients', { token, body: { _id: 'c5' } });
  expect(manual.status).toBe(201);
  expect((await stack.api('POST', '/clients/c5/assign-agents', { token, body: { agents: [{ agent: 'a1' }] } })).status).toBe(200);

  const res = await stack.api('POST', '/agents/a1/reroute', { token, body: {} });
  expect(res.status).toBe(200);
  expect(res.body.agent).toBe('a1');
  const byClient = Object.fromEntries(res.body.decisions.map((d: { client: string }) => [d.client, d]));
  expect(Object.keys(byClient).sort()).toEqual(['c1', 'c4', 'c5']);
  expect(byClient.c5).toEqual({ client: 'c5', status: 'kept', decision_id: null, agent: 'a1', position: null });
  for (const c of ['c1', 'c4']) {
    expect(byClient[c]).toMatchObject({ status: 'assigned', decision_id: expect.any(String) });
    expect(byClient[c].agent).not.toBe('a1');
    expect(await owners(token, c)).toEqual([byClient[c].agent]);
  }
  expect((await stack.api('GET', '/agents/a1', { token })).body.load).toBe(1);
  const ended = (await stack.api('GET', '/clients/c1/agents?status=all', { token })).body.assignments.find((a: { agent: string }) => a.agent === 'a1');
  expect(ended).toMatchObject({ status: 'unassigned', ended_by: { actor: 'user', reason: 'api' } });
});

test('with nobody else eligible the client waits in the queue; under reject the agent keeps it', async () => {
  const token = await setUp({ capacity: 1 });
  for (const c of ['c1', 'c2', 'c3']) await stack.api('POST', `/clients/${c}/route`, { token, body: { policy: 'sales' } });
  // A rep who leaves is set away first: otherwise the queue may give the client back once its capacity frees.
  expect((await stack.api('PATCH', '/agents/a1', { token, body: { presence: 'away' } })).status).toBe(200);
  const queued = await stack.api('POST', '/agents/a1/reroute', { token, body: { policy: 'sales' } });
  expect(queued.body.decisions).toEqual([{ client: 'c1', status: 'queued', decision_id: expect.any(String), agent: null, position: 1 }]);
  expect(await owners(token, 'c1')).toEqual([]);
  expect((await stack.api('GET', '/routing-policies/sales/queue', { token })).body.queue).toEqual([expect.objectContaining({ client: 'c1', position: 1 })]);

  const strict = await setUp({ capacity: 1, when_none_eligible: 'reject' });
  for (const c of ['c1', 'c2', 'c3']) await stack.api('POST', `/clients/${c}/route`, { token: strict, body: { policy: 'sales' } });
  const rejected = await stack.api('POST', '/agents/a1/reroute', { token: strict });
  expect(rejected.body.decisions).toEqual([{ client: 'c1', status: 'rejected', decision_id: expect.any(String), agent: 'a1', position: null }]);
  expect(await owners(strict, 'c1')).toEqual(['a1']);
});

test('another user\'s agent or policy is a 404', async () => {
  const token = await setUp({});
  const bob = await setUp({});
  expectProblem(await stack.api('POST', '/agents/ghost/reroute', { token, body: {} }), 404, 'Agent not found');
  expectProblem(await stack.api('POST', '/agents/a1/reroute', { token, body: { policy: 'nope' } }), 404, 'Routing policy not found');
  expect((await stack.api('POST', '/agents/a1/reroute', { token: bob, body: {} })).body.decisions).toEqual([]);
});
