import { delivered, subscribe } from './support/events';
import { eventually } from './support/helpers';
import { clientWithAgents, plusMs, rotationAssignments } from './support/rotation';
import { startTestStack, uniqueName, type TestStack } from './support/stack';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';

/*
 * One tenant's slow webhook receiver must not cost another tenant's rotation a period: deliveries run
 * on their own task queue, so the rotation's steps never wait behind POSTs that take seconds.
 */

const PERIOD_MS = 2000;
const RECEIVER_DELAY_MS = 9000;
/** Enough 9-second POSTs to fill every slot the base queue has (10) for longer than the test watches. */
const DELIVERIES = 40;

let stack: TestStack;
let slow: WebhookReceiver;

beforeAll(async () => {
  stack = await startTestStack({ rotationMinPeriodMs: 1000 });
  slow = await startWebhookReceiver();
  slow.respond = () => ({ status: 200, delayMs: RECEIVER_DELAY_MS });
});
afterAll(async () => {
  await slow.close();
  await stack.stop();
});

test('with a 9-second webhook receiver busy for one tenant, another tenant\'s rotation hands out every period on time', async () => {
  // Tenant X: a subscription to a receiver that answers after 9 s, and 40 events for it.
  const tokenX = stack.token(uniqueName('tenant-x'));
  await subscribe(stack.api, tokenX, slow, { events: ['assignment.created'] });
  const x = await clientWithAgents(stack, tokenX, DELIVERIES);
  const assigned = await stack.api('POST', `/clients/${x.clientId}/assign-agents`, { token: tokenX, body: { agents: x.agents.map((agent) => ({ agent })) } });
  expect(assigned.status).toBe(200);
  // The receiver is holding POSTs open.
  await eventually(async () => slow.requests.length >= 10, 30_000);

  // Tenant Y: a rotation of two agents with two-second periods.
  const tokenY = stack.token(uniqueName('tenant-y'));
  const y = await clientWithAgents(stack, tokenY, 2);
  const put = await stack.api('PUT', `/clients/${y.clientId}/rotation`, { token: tokenY, body: { agents: y.agents, period: '2s' } });
  expect(put.status).toBe(201);
  const startsAt = put.body.starts_at as string;

  const periods = await eventually(async () => {
    const made = await rotationAssignments(stack, tokenY, y.clientId);
    return made.length >= 5 ? made : undefined;
  }, 30_000);
  // The receiver was still busy with tenant X's backlog all along.
  expect(delivered(slow).length).toBeLessThan(DELIVERIES);

  expect(periods.slice(0, 5).map((p) => [p.agent, p.dt_until])).toEqual(
    [0, 1, 2, 3, 4].map((k) => [y.agents[k % 2], plusMs(startsAt, (k + 1) * PERIOD_MS)]),
  );
  const view = await stack.api('GET', `/clients/${y.clientId}/rotation`, { token: tokenY });
  expect(view.body.skipped).toEqual([]);
  expect((await stack.api('DELETE', `/clients/${y.clientId}/rotation`, { token: tokenY })).status).toBe(200);
}, 90_000);
