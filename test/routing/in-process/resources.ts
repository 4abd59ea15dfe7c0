import { randomUUID } from 'node:crypto';
import { expectProblem } from '../../support/helpers';
import { startTestStack, type TestStack } from '../../support/stack';

/*
 * Teams and policies end: DELETE /teams/{_id} and DELETE /routing-policies/{_id} (409 while a client
 * waits in a queue that needs them); a deleted agent leaves every team; GET /routing-decisions lists the
 * decisions a page at a time, by client or agent.
 */

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

async function setUp(agents: string[], policy: Record<string, unknown> = {}) {
  const token = stack.token(`user-${randomUUID()}`);
  for (const _id of agents) expect((await stack.api('POST', '/agents', { token, body: { _id } })).status).toBe(201);
  for (const _id of ['c1', 'c2', 'c3']) expect((await stack.api('POST', '/clients', { token, body: { _id } })).status).toBe(201);
  expect((await stack.api('PUT', '/teams/sales', { token, body: { members: agents.map((agent) => ({ agent })) } })).status).toBe(200);
  expect((await stack.api('PUT', '/routing-policies/sales', { token, body: { team: 'sales', ...policy } })).status).toBe(200);
  return token;
}
const route = (token: string, client: string) => stack.api('POST', `/clients/${client}/route`, { token, body: { policy: 'sales' } });

test('a policy with a client waiting is not deleted (409); taken out of the queue, it is (204), and is then a 404', async () => {
  const token = await setUp(['a1'], { capacity: 1 });
  expect((await route(token, 'c1')).status).toBe(200);
  expect((await route(token, 'c2')).status).toBe(202);
  const message = 'Routing policy sales has 1 client waiting in its queue: take it out first (DELETE /clients/{_id}/route?policy=sales)';
  expectProblem(await stack.api('DELETE', '/routing-policies/sales', { token }), 409, message);
  expectProblem(await stack.api('DELETE', '/teams/sales', { token }), 409, 'Team sales is the team of routing policy sales, which has 1 client waiting in its queue: take it out first (DELETE /clients/{_id}/route?policy=sales)');
  expect((await stack.api('GET', '/routing-policies/sales/queue', { token })).body.queue).toHaveLength(1);

  expect((await stack.api('DELETE', '/clients/c2/route', { token })).status).toBeLessThan(300);
  const deleted = await stack.api('DELETE', '/routing-policies/sales', { token });
  expect({ status: deleted.status, body: deleted.body }).toEqual({ status: 204, body: undefined });
  expectProblem(await stack.api('GET', '/routing-policies/sales', { token }), 404, 'Routing policy not found');
  expectProblem(await stack.api('DELETE', '/routing-policies/sales', { token }), 404, 'Routing policy not found');
  expectProblem(await route(token, 'c3'), 404, 'Routing policy not found');
  // The assignment it made stays.
  expect((await stack.api('GET', '/clients/c1/agents', { token })).body.assignments).toEqual([expect.objectContaining({ agent: 'a1' })]);
});

test('a team is deleted once no queue waits on it; its policy then has no members and queues', async () => {
  const token = await setUp(['a1']);
  const deleted = await stack.api('DELETE', '/teams/sales', { token });
  expect(deleted.status).toBe(204);
  expectProblem(await stack.api('GET', '/teams/sales', { token }), 404, 'Team not found');
  expectProblem(await stack.api('DELETE', '/teams/sales', { token }), 404, 'Team not found');
  expect((await route(token, 'c1')).body).toMatchObject({ status: 'queued', position: 1 });
});

test('another user\'s team or policy is a 404 to DELETE and stays', async () => {
  const alice = await setUp(['a1']);
  const bob = stack.token(`user-${randomUUID()}`);
  expectProblem(await stack.api('DELETE', '/teams/sales', { token: bob }), 404, 'Team not found');
  expectProblem(await stack.api('DELETE', '/routing-policies/sales', { token: bob }), 404, 'Routing policy not found');
  expect((await stack.api('GET', '/teams/sales', { token: alice })).status).toBe(200);
  expect((await stack.api('GET', '/routing-policies/sales', { token: alice })).status).toBe(200);
});

test('a deleted agent leaves every team; an agent made later with its id joins none', async () => {
  const token = await setUp(['a1', 'a2']);
  expect((await stack.api('PUT', '/teams/support', { token, body: { members: [{ agent: 'a2' }, { agent: 'a1', weight: 2 }] } })).status).toBe(200);
  expect((await stack.api('DELETE', '/agents/a1', { token })).status).toBeLessThan(300);
  expect((await stack.api('POST', '/agents', { token, body: { _id: 'a1' } })).status).toBe(201);
  const teams = (await stack.api('GET', '/teams', { token })).body.teams.map((t: { _id: string; members: unknown }) => [t._id, t.members]);
  expect(teams).toEqual([
    ['sales', [{ agent: 'a2', weight: 1 }]],
    ['support', [{ agent: 'a2', weight: 1 }]],
  ]);
  expect((await route(token, 'c1')).body).toMatchObject({ status: 'assigned', agent: 'a2' });
});

test('GET /routing-decisions: newest first, a page at a time, by client, agent, policy or status; another user sees none', async () => {
  const token = await setUp(['a1', 'a2'], { capacity: 1 });
  const ids = [];
  for (const c of ['c1', 'c2', 'c3']) ids.push((await route(token, c)).body.decision_id);
  const first = await stack.api('GET', '/routing-decisions?limit=2', { token });
  expect(first.body.decisions.map((d: { decision_id: string }) => d.decision_id)).toEqual([ids[2], ids[1]]);
  expect(first.body.next_cursor).toEqual(expect.any(String));
  const second = await stack.api('GET', `/routing-decisions?limit=2&cursor=${first.body.next_cursor}`, { token });
  expect({ ids: second.body.decisions.map((d: { decision_id: string }) => d.decision_id), next: second.body.next_cursor }).toEqual({ ids: [ids[0]], next: null });

  const ofClient = (await stack.api('GET', '/routing-decisions?client=c2', { token })).body.decisions;
  expect(ofClient).toEqual([expect.objectContaining({ decision_id: ids[1], client: 'c2', agent: 'a2', status: 'assigned' })]);
  expect((await stack.api('GET', '/routing-decisions?agent=a1', { token })).body.decisions.map((d: { client: string }) => d.client)).toEqual(['c1']);
  expect((await stack.api('GET', '/routing-decisions?status=queued&policy=sales', { token })).body.decisions.map((d: { client: string }) => d.client)).toEqual(['c3']);
  expect((await stack.api('GET', '/routing-decisions?client=nobody', { token })).body).toEqual({ decisions: [], next_cursor: null });

  expect((await stack.api('GET', '/routing-decisions', { token: stack.token(`user-${randomUUID()}`) })).body).toEqual({ decisions: [], next_cursor: null });
  expectProblem(await stack.api('GET', '/routing-decisions?cursor=nonsense', { token }), 400, 'Invalid cursor: pass next_cursor from the previous page');
  expectProblem(await stack.api('GET', '/routing-decisions?status=maybe', { token }), 400, /^Invalid status: /);
  expectProblem(await stack.api('GET', '/routing-decisions?limit=101', { token }), 400, /^Invalid limit: /);
});
