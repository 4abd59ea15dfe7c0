import type { ClientRunState } from '../../../src/domain';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';
import { eventually, expectProblem } from '../../support/helpers';

/* GET and DELETE /agents/{_id}, and GET /agents/{_id}/clients, for the calling user only. */

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ rotationMinPeriodMs: 1000 });
});
afterAll(() => stack.stop());

const newUser = () => stack.token(uniqueName('user'));
const ids = (items: { _id: string }[]) => items.map((i) => i._id);

async function create(token: string, kind: 'clients' | 'agents', ...list: string[]) {
  for (const _id of list) expect((await stack.api('POST', `/${kind}`, { token, body: { _id } })).status).toBe(201);
}

async function assign(token: string, client: string, agents: { agent: string; dt_until?: string }[]) {
  const res = await stack.api('POST', `/clients/${client}/assign-agents`, { token, body: { agents } });
  expect(res.status).toBe(200);
  return res.body.assignments as { agent: string; workflow_id: string }[];
}

describe('GET /agents/{_id}', () => {
  test('the Location of POST /agents resolves to the agent', async () => {
    const token = newUser();
    const created = await stack.api('POST', '/agents', { token, body: { _id: 'a1', name: 'Grace' } });
    const location = created.headers.get('location')!;
    const read = await stack.api('GET', `/${location}`, { token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    expect(read.body).toMatchObject({ _id: 'a1', name: 'Grace', load: 0 });
  });

  test('another user\'s, another business\'s, a missing and an impossible agent are the same 404', async () => {
    const alice = newUser();
    await create(alice, 'agents', 'a1');
    expectProblem(await stack.api('GET', '/agents/a1', { token: newUser() }), 404, 'Agent not found');
    expectProblem(await stack.api('GET', `//ext/v2/${stack.business}-other/agents/a1`, { token: alice }), 404, 'Agent not found');
    expectProblem(await stack.api('GET', '/agents/nobody', { token: alice }), 404, 'Agent not found');
    expectProblem(await stack.api('GET', `/agents/${encodeURIComponent('no such id')}`, { token: alice }), 404, 'Agent not found');
    expectProblem(await stack.api('DELETE', '/agents/a1', { token: newUser() }), 404, 'Agent not found');
    expectProblem(await stack.api('GET', '/agents/a1/clients', { token: newUser() }), 404, 'Agent not found');
    expect((await stack.api('GET', '/agents/a1', { token: alice })).status).toBe(200);
  });
});

describe('DELETE /agents/{_id}', () => {
  test('ends its assignments (ended_by agent_deleted, their clocks gone from their clients\' runs), and frees its id', async () => {
    const token = newUser();
    await create(token, 'clients', 'c1', 'c2');
    await create(token, 'agents', 'a1', 'a2');
    const [first] = await assign(token, 'c1', [{ agent: 'a1' }, { agent: 'a2' }]);
    const [second] = await assign(token, 'c2', [{ agent: 'a1', dt_until: '2099-01-01' }]);

    const deleted = await stack.api('DELETE', '/agents/a1', { token });
    expect(deleted.status).toBe(204);

    for (const client of ['c1', 'c2']) {
      const history = (await stack.api('GET', `/clients/${client}/agents?status=all`, { token })).body.assignments;
      expect(history.find((a: { agent: string }) => a.agent === 'a1')).toEqual(
        expect.objectContaining({ status: 'unassigned', ended_by: { actor: 'user', reason: 'agent_deleted' }, ended_at: expect.any(String) }),
      );
    }
    // c2's run held a1 alone and ends; c1's still holds a2's clock.
    await expect(stack.temporal.workflow.getHandle(second.workflow_id).result()).resolves.toEqual({ outcome: 'idle' });
    await eventually(async () => {
      const held = await stack.temporal.workflow.getHandle(first.workflow_id).query<ClientRunState>('state');
      return held.assignments.map((a) => a.agentId).join() === 'a2';
    });
    expect((await stack.api('GET', '/clients/c1/agents', { token })).body.assignments.map((a: { agent: string }) => a.agent)).toEqual(['a2']);
    const events = (await stack.api('GET', '/events?type=assignment.unassigned', { token })).body.events;
    expect(events.map((e: any) => [e.data.client, e.data.agent, e.data.reason])).toEqual([
      ['c1', 'a1', 'agent_deleted'],
      ['c2', 'a1', 'agent_deleted'],
    ]);

    expectProblem(await stack.api('GET', '/agents/a1', { token }), 404, 'Agent not found');
    expectProblem(await stack.api('DELETE', '/agents/a1', { token }), 404, 'Agent not found');
    expect(ids((await stack.api('GET', '/agents', { token })).body.agents)).toEqual(['a2']);
    expectProblem(await stack.api('POST', '/clients/c1/assign-agents', { token, body: { agents: [{ agent: 'a1' }] } }), 400, 'Agent a1 not found or not authorized');
    // A new agent may take the id; it holds nothing of the deleted one.
    await create(token, 'agents', 'a1');
    expect((await stack.api('GET', '/agents/a1/clients', { token })).body).toEqual({ agent: 'a1', clients: [], next_cursor: null });
  });

  test('it leaves rotations, which go on with the others (the rest of its period at once); one left with nobody stops', async () => {
    const token = newUser();
    await create(token, 'clients', 'shared', 'alone');
    await create(token, 'agents', 'a1', 'a2');
    const shared = await stack.api('PUT', '/clients/shared/rotation', { token, body: { agents: ['a1', 'a2'], period: '1h' } });
    const alone = await stack.api('PUT', '/clients/alone/rotation', { token, body: { agents: ['a1'], period: '1h' } });
    expect([shared.status, alone.status]).toEqual([201, 201]);
    expect(shared.body.current.agent).toBe('a1');

    expect((await stack.api('DELETE', '/agents/a1', { token })).status).toBe(204);

    const goesOn = await eventually(async () => {
      const rotation = (await stack.api('GET', '/clients/shared/rotation', { token })).body;
      return rotation.current?.agent === 'a2' ? rotation : undefined;
    });
    expect(goesOn).toEqual(expect.objectContaining({ status: 'active', agents: ['a2'], starts_at: shared.body.starts_at }));
    expect(goesOn.current.until).toBe(shared.body.current.until);
    const held = (await stack.api('GET', '/clients/shared/agents', { token })).body.assignments;
    expect(held).toEqual([expect.objectContaining({ agent: 'a2', rotation: true, dt_until: shared.body.current.until })]);

    const stopped = (await stack.api('GET', '/clients/alone/rotation', { token })).body;
    expect(stopped).toEqual(expect.objectContaining({ status: 'stopped', stopped_by: { actor: 'user', reason: 'agent_deleted' } }));
    // The client's run, which held the rotation's boundaries, ends: the client holds no clock any more.
    expect(alone.body.workflow_id).toMatch(/^client\//);
    await expect(stack.temporal.workflow.getHandle(alone.body.workflow_id).result()).resolves.toEqual({ outcome: 'idle' });
    const rotationEvents = (await stack.api('GET', '/events?type=rotation.stopped', { token })).body.events;
    expect(rotationEvents.map((e: any) => [e.data.client, e.data.reason])).toEqual([['alone', 'agent_deleted']]);
    // The rotation's own assignments of the deleted agent ended like the others.
    const history = (await stack.api('GET', '/clients/alone/agents?status=all', { token })).body.assignments;
    expect(history).toEqual([expect.objectContaining({ agent: 'a1', status: 'unassigned', ended_by: { actor: 'user', reason: 'agent_deleted' } })]);
  });
});

describe('GET /agents/{_id}/clients', () => {
  test('the clients the agent holds now, with dt_until, oldest first, a page at a time', async () => {
    const token = newUser();
    const clients = ['c1', 'c2', 'c3', 'c4', 'c5'];
    await create(token, 'clients', ...clients, 'ended', 'expiring');
    await create(token, 'agents', 'a1', 'a2');
    for (const [i, client] of clients.entries()) await assign(token, client, [{ agent: 'a1', dt_until: `209${i}-01-01` }]);
    await assign(token, 'ended', [{ agent: 'a1' }]);
    await stack.api('DELETE', '/clients/ended/agents/a1', { token });
    const expiresAt = Date.now() + 3000;
    await assign(token, 'expiring', [{ agent: 'a1', dt_until: new Date(expiresAt).toISOString() }]);
    await assign(token, 'c1', [{ agent: 'a2' }]);
    // Past its dt_until the client is no longer held, even before its workflow has marked it expired.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 100));

    const seen: { client: string; dt_until: string }[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await stack.api('GET', `/agents/a1/clients?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.agent).toBe('a1');
      seen.push(...res.body.clients);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen.map((c) => [c.client, c.dt_until])).toEqual(clients.map((c, i) => [c, `209${i}-01-01T00:00:00.000Z`]));
    expect(seen[0]).toEqual({ client: 'c1', dt_until: '2090-01-01T00:00:00.000Z', rotation: false, assigned_at: expect.any(String), workflow_id: expect.stringMatching(/^client\//) });
    expect((await stack.api('GET', '/agents/a2/clients', { token })).body.clients.map((c: { client: string }) => c.client)).toEqual(['c1']);
  });

  test('bad paging parameters are 400', async () => {
    const token = newUser();
    await create(token, 'agents', 'a1');
    expectProblem(await stack.api('GET', '/agents/a1/clients?limit=101', { token }), 400, 'Invalid limit: Too big: expected number to be <=100');
    expectProblem(await stack.api('GET', '/agents/a1/clients?cursor=abc', { token }), 400, 'Invalid cursor: pass next_cursor from the previous page');
  });
});
