import { randomUUID } from 'node:crypto';
import { eventually } from '../../support/helpers';
import { startTestStack, type TestStack } from '../../support/stack';

/*
 * Routing a client someone holds already: routing never changes an existing assignment (its date, its
 * notes, who made it). A client an eligible member of the policy's team holds is answered with that
 * holder (`already_assigned`, the decision says so); one held by others only gets an owner beside them,
 * and the answer names them (`other_holders`).
 */

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ routingMinFirstResponseMs: 1000 });
});
afterAll(() => stack.stop());

const HAND_MADE = '2030-01-01T00:00:00.000Z';

async function setUp(team: string[], policy: Record<string, unknown> = {}, others: string[] = []) {
  const token = stack.token(`user-${randomUUID()}`);
  for (const _id of [...team, ...others]) expect((await stack.api('POST', '/agents', { token, body: { _id } })).status).toBe(201);
  for (const _id of ['c1', 'c2', 'c3']) expect((await stack.api('POST', '/clients', { token, body: { _id } })).status).toBe(201);
  expect((await stack.api('PUT', '/teams/sales', { token, body: { members: team.map((agent) => ({ agent })) } })).status).toBe(200);
  expect((await stack.api('PUT', '/routing-policies/sales', { token, body: { team: 'sales', ...policy } })).status).toBe(200);
  return token;
}
const byHand = async (token: string, client: string, agent: string) =>
  expect((await stack.api('POST', `/clients/${client}/assign-agents`, { token, body: { agents: [{ agent, dt_until: '2030-01-01' }], ds_notes: 'by hand' } })).status).toBe(200);
const route = (token: string, client: string, headers: Record<string, string> = {}) => stack.api('POST', `/clients/${client}/route`, { token, body: { policy: 'sales' }, headers });
const holdings = async (token: string, client: string) =>
  (await stack.api('GET', `/clients/${client}/agents`, { token })).body.assignments.map((a: any) => ({ agent: a.agent, dt_until: a.dt_until, routed_by: a.routed_by }));

test('a client held by hand by a member is answered already_assigned with that holder; its assignment keeps its date', async () => {
  const token = await setUp(['a1', 'a2'], { assignment_duration: 'P14D' });
  await byHand(token, 'c1', 'a1');
  const res = await route(token, 'c1', { 'Idempotency-Key': 'held-1' });
  expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { decision_id: expect.any(String), status: 'already_assigned', agent: 'a1', dt_until: HAND_MADE } });
  expect(await holdings(token, 'c1')).toEqual([{ agent: 'a1', dt_until: HAND_MADE, routed_by: null }]);

  const decision = (await stack.api('GET', `/routing-decisions/${res.body.decision_id}`, { token })).body;
  expect(decision).toMatchObject({ status: 'already_assigned', agent: 'a1', dt_until: HAND_MADE, client: 'c1' });
  // The same key answers the same decision; nothing was routed, so no routing event.
  expect((await route(token, 'c1', { 'Idempotency-Key': 'held-1' })).body).toEqual(res.body);
  expect((await stack.api('GET', '/events?type=routing.*&client=c1', { token })).body.events).toEqual([]);
});

test('a holder at capacity only because of this very client still holds it', async () => {
  const token = await setUp(['a1', 'a2'], { capacity: 1 });
  await byHand(token, 'c1', 'a1');
  expect((await route(token, 'c1')).body).toMatchObject({ status: 'already_assigned', agent: 'a1', dt_until: HAND_MADE });
  expect(await holdings(token, 'c1')).toEqual([{ agent: 'a1', dt_until: HAND_MADE, routed_by: null }]);
});

test('a client held by an agent outside the team gets a member beside it, and the answer names the other holder', async () => {
  const token = await setUp(['a1'], {}, ['a9']);
  await byHand(token, 'c1', 'a9');
  const res = await route(token, 'c1');
  expect({ status: res.status, body: res.body }).toEqual({
    status: 200,
    body: { decision_id: expect.any(String), status: 'assigned', agent: 'a1', dt_until: '2143-06-23T00:00:00.000Z', other_holders: [{ agent: 'a9', dt_until: HAND_MADE }] },
  });
  expect(await holdings(token, 'c1')).toEqual(
    expect.arrayContaining([{ agent: 'a9', dt_until: HAND_MADE, routed_by: null }, expect.objectContaining({ agent: 'a1', routed_by: expect.objectContaining({ policy: 'sales' }) })]),
  );
  // A client nobody else holds is answered as before, without the field.
  expect(Object.keys((await route(token, 'c2')).body).sort()).toEqual(['agent', 'decision_id', 'dt_until', 'status']);
});

test('a holder who is a member but not eligible (away) is never picked, so its date stays; the new owner is added beside it', async () => {
  const token = await setUp(['a1', 'a2']);
  await byHand(token, 'c1', 'a1');
  expect((await stack.api('PATCH', '/agents/a1', { token, body: { presence: 'away' } })).status).toBe(200);
  const res = await route(token, 'c1');
  expect(res.body).toMatchObject({ status: 'assigned', agent: 'a2', other_holders: [{ agent: 'a1', dt_until: HAND_MADE }] });
  const decision = (await stack.api('GET', `/routing-decisions/${res.body.decision_id}`, { token })).body;
  expect(decision.candidates[0]).toEqual({ agent: 'a1', eligible: false, reasons: ['away', 'holds_client'], load: 1, capacity: null });
  expect((await holdings(token, 'c1')).find((h: { agent: string }) => h.agent === 'a1')).toEqual({ agent: 'a1', dt_until: HAND_MADE, routed_by: null });
});

test('a waiting client assigned by hand to a member leaves the queue already_assigned when the queue reaches it', async () => {
  const token = await setUp(['a1'], { capacity: 1 });
  expect((await route(token, 'c1')).status).toBe(200);
  const waiting = await route(token, 'c2');
  expect(waiting.body).toMatchObject({ status: 'queued', position: 1 });
  await byHand(token, 'c2', 'a1');
  // Capacity frees: the queue's run looks at c2 and finds a1 holding it.
  expect((await stack.api('DELETE', '/clients/c1/agents/a1', { token })).status).toBeLessThan(300);
  await eventually(async () => (await stack.api('GET', `/routing-decisions/${waiting.body.decision_id}`, { token })).body.status === 'already_assigned', 10_000, 200);
  expect((await stack.api('GET', `/routing-decisions/${waiting.body.decision_id}`, { token })).body).toMatchObject({ agent: 'a1', dt_until: HAND_MADE });
  expect((await stack.api('GET', '/routing-policies/sales/queue', { token })).body.queue).toEqual([]);
  expect(await holdings(token, 'c2')).toEqual([{ agent: 'a1', dt_until: HAND_MADE, routed_by: null }]);
});

test('a reroute of a client another member holds by hand leaves it with that member, whose date stays', async () => {
  const token = await setUp(['a1', 'a2']);
  expect((await route(token, 'c1')).body).toMatchObject({ status: 'assigned', agent: 'a1' });
  await byHand(token, 'c1', 'a2');
  const res = await stack.api('POST', '/agents/a1/reroute', { token, body: {} });
  expect(res.body.decisions).toEqual([{ client: 'c1', status: 'already_assigned', decision_id: expect.any(String), agent: 'a2', position: null }]);
  expect(await holdings(token, 'c1')).toEqual([{ agent: 'a2', dt_until: HAND_MADE, routed_by: null }]);
});

test('a missed first response moves the client past a member who holds it by hand, whose date stays', async () => {
  const token = await setUp(['a1', 'a2', 'a3'], { first_response_within: 'PT1S', max_reassignments: 1 });
  const routed = await route(token, 'c1');
  expect(routed.body).toMatchObject({ status: 'assigned', agent: 'a1' });
  await byHand(token, 'c1', 'a2');
  // Round robin would give a2 next: a2 holds the client already, so the clock moves it to a3.
  const decision = await eventually(async () => {
    const d = (await stack.api('GET', `/routing-decisions/${routed.body.decision_id}`, { token })).body;
    return d.reassignments === 1 ? d : null;
  }, 20_000, 250);
  expect(decision).toMatchObject({ agent: 'a3', status: 'assigned' });
  expect(decision.candidates.find((c: { agent: string }) => c.agent === 'a2').reasons).toContain('holds_client');
  const held = await holdings(token, 'c1');
  expect(held).toEqual(expect.arrayContaining([{ agent: 'a2', dt_until: HAND_MADE, routed_by: null }, expect.objectContaining({ agent: 'a3' })]));
  expect(held.map((h: { agent: string }) => h.agent)).not.toContain('a1');
});
