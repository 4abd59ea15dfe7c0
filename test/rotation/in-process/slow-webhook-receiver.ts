import { delivered, subscribe } from '../../support/events';
import { eventually } from '../../support/helpers';
import { clientWithAgents, plusMs, rotationAssignments, sleep } from '../../support/rotation';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver';

/*
 * One tenant's slow webhook receiver must not cost another tenant's rotation a period: deliveries run
 * on their own task queue, so the rotation's steps never wait behind POSTs that take seconds.
 */

// Periods of a few seconds: short enough to watch three within the receiver's first 9 s wave, long
// enough that a loaded machine's ordinary delays (a workflow task, a transaction) never cost one (the
// rotation files' periods are 2–3 s).
const PERIOD_MS = 3000;
const WATCHED = 3;
/**
 * The restart test's period: the restarted worker's first step must come within the 9 s left of the period
 * it comes back into (with 6 s periods, 5 s left, it came later at load 24).
 */
const RESTART_PERIOD_MS = 10_000;
const RECEIVER_DELAY_MS = 9000;
/** Enough 9-second POSTs to fill every slot the base queue has (10), and the deliveries queue's (20), for longer than the test watches. */
const DELIVERIES = 60;

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

/** Tenant X: a subscription to the receiver that answers after 9 s, and 60 events for it; resolves once it holds POSTs open. */
async function slowBacklog(): Promise<number> {
  const tokenX = stack.token(uniqueName('tenant-x'));
  await subscribe(stack.api, tokenX, slow, { events: ['assignment.created'] });
  const x = await clientWithAgents(stack, tokenX, DELIVERIES);
  const before = slow.requests.length;
  const assigned = await stack.api('POST', `/clients/${x.clientId}/assign-agents`, { token: tokenX, body: { agents: x.agents.map((agent) => ({ agent })) } });
  expect(assigned.status).toBe(200);
  await eventually(async () => slow.requests.length >= before + 10, 30_000);
  return before + DELIVERIES;
}

/** Tenant Y: a client of its own, `agents` agents, and a rotation of them with `period`; starts_at as the PUT answered it. */
async function tenantYRotation(agents: number, period: string) {
  const token = stack.token(uniqueName('tenant-y'));
  const y = await clientWithAgents(stack, token, agents);
  const put = await stack.api('PUT', `/clients/${y.clientId}/rotation`, { token, body: { agents: y.agents, period } });
  expect(put.status).toBe(201);
  return { ...y, token, startsAt: put.body.starts_at as string };
}

test('with a 9-second webhook receiver busy for one tenant, another tenant\'s rotation hands out every period on time', async () => {
  const total = await slowBacklog();

  const y = await tenantYRotation(2, `${PERIOD_MS / 1000}s`);
  const { token: tokenY, startsAt } = y;

  const periods = await eventually(async () => {
    const made = await rotationAssignments(stack, tokenY, y.clientId);
    return made.length >= WATCHED ? made : undefined;
  }, 45_000);
  // The receiver was still busy with tenant X's backlog all along.
  expect(delivered(slow).length).toBeLessThan(total);

  const view = await stack.api('GET', `/clients/${y.clientId}/rotation`, { token: tokenY });
  expect(view.body.skipped).toEqual([]);
  expect(periods.slice(0, WATCHED).map((p) => [p.agent, p.dt_until])).toEqual(
    [...Array(WATCHED).keys()].map((k) => [y.agents[k % 2], plusMs(startsAt, (k + 1) * PERIOD_MS)]),
  );
  expect((await stack.api('DELETE', `/clients/${y.clientId}/rotation`, { token: tokenY })).status).toBe(200);
}, 90_000);

test('a worker restarted during a period, with a slow receiver\'s deliveries waiting: the period in progress is handed out for its remainder', async () => {
  const total = await slowBacklog();
  const y = await tenantYRotation(3, `${RESTART_PERIOD_MS / 1000}s`);
  const tokenY = y.token;
  const startsAt = Date.parse(y.startsAt);

  await stack.stopWorker();
  // The worker comes back a second into the first period that began while it was down.
  const k = Math.ceil((Date.now() - startsAt) / RESTART_PERIOD_MS);
  const boundary = new Date(startsAt + k * RESTART_PERIOD_MS).toISOString();
  try {
    await sleep(Date.parse(boundary) + 1000 - Date.now());
  } finally {
    await stack.startWorker();
  }
  expect(delivered(slow).length).toBeLessThan(total);

  const resumed = await eventually(async () => {
    const made = await rotationAssignments(stack, tokenY, y.clientId);
    return made.find((p) => Date.parse(p.dt_until) >= Date.parse(boundary) + RESTART_PERIOD_MS);
  }, 30_000);
  expect([resumed.agent, resumed.dt_until]).toEqual([y.agents[k % 3], plusMs(boundary, RESTART_PERIOD_MS)]);
  const view = await stack.api('GET', `/clients/${y.clientId}/rotation`, { token: tokenY });
  // Only periods that ended while the worker was down may be missing, and they say so.
  for (const missed of view.body.skipped) {
    expect(Date.parse(missed.until)).toBeLessThanOrEqual(Date.parse(boundary));
    expect(missed.reason).toMatch(/^No worker ran from /);
  }
  expect((await stack.api('DELETE', `/clients/${y.clientId}/rotation`, { token: tokenY })).status).toBe(200);
}, 120_000);
