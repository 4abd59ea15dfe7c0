import type { Client } from '@temporalio/client';
import { loadConfig } from '../../../src/config/index';
import { admissionLimits, createAdmission, createAdmissions, DEFAULT_ADMISSION, TemporalBusyError } from '../../../src/starters/admission';
import { startTestStack, type TestStack } from '../../support/stack';

/*
 * Backpressure: beyond its places in flight, a request waits briefly, then is a 503 with Retry-After
 * before anything is stored, rather than queuing in Temporal until it times out.
 */
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

describe('the gate', () => {
  test('admits up to its limit, lets a waiting call in when a place frees, and refuses one that waited too long', async () => {
    const gate = createAdmission({ limit: 2, waitMs: 200, waitingPerTenant: 10, retryAfterSeconds: 3 });
    const releases: (() => void)[] = [];
    const held = () => gate.run('u1', () => new Promise<void>((resolve) => releases.push(resolve)));
    const first = held();
    const second = held();
    expect(gate.inFlight).toBe(2);

    const third = held();
    expect(gate.waiting).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(releases).toHaveLength(2);
    releases.shift()!();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(gate).toMatchObject({ inFlight: 2, waiting: 0 });

    const refused = gate.run('u1', async () => 'never');
    await expect(refused).rejects.toBeInstanceOf(TemporalBusyError);
    await expect(refused).rejects.toMatchObject({ retryAfterSeconds: 3 });
    expect(gate.waiting).toBe(0);

    for (const release of releases.splice(0)) release();
    await Promise.all([second, third]);
    expect(gate.inFlight).toBe(0);
  });

  test('its places are configured per process, 6 message starts and 32 assign requests unless told otherwise', () => {
    const places = (env: Record<string, string>) => {
      const config = loadConfig(env);
      return admissionLimits({ messages: config.MESSAGE_STARTS_IN_FLIGHT, assign: config.ASSIGN_REQUESTS_IN_FLIGHT });
    };
    expect(places({})).toEqual(DEFAULT_ADMISSION);
    expect(places({ MESSAGE_STARTS_IN_FLIGHT: '2', ASSIGN_REQUESTS_IN_FLIGHT: '5' })).toMatchObject({ messages: { limit: 2, waitMs: 1000 }, assign: { limit: 5, waitMs: 8000 } });
    expect(() => loadConfig({ MESSAGE_STARTS_IN_FLIGHT: '0' })).toThrow('MESSAGE_STARTS_IN_FLIGHT');
  });

  test('behind: while its oldest call has run shedAfterMs, a new request is refused at once, whatever places are free', async () => {
    const gate = createAdmission({ limit: 10, waitMs: 5000, waitingPerTenant: 10, retryAfterSeconds: 2, shedAfterMs: 150 });
    let release!: () => void;
    const slow = gate.run('u1', () => new Promise<void>((resolve) => (release = resolve)));
    await expect(gate.run('u2', async () => 'fresh')).resolves.toBe('fresh');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const began = Date.now();
    await expect(gate.run('u2', async () => 'never')).rejects.toMatchObject({ name: 'TemporalBusyError', retryAfterSeconds: 2 });
    expect(Date.now() - began).toBeLessThan(100);
    release();
    await slow;
    await expect(gate.run('u2', async () => 'caught up')).resolves.toBe('caught up');
    expect(DEFAULT_ADMISSION.assign.shedAfterMs).toBe(10_000);
  });

  test('a failing call gives its place back', async () => {
    const gate = createAdmission({ limit: 1, waitMs: 0, waitingPerTenant: 1, retryAfterSeconds: 1 });
    await expect(gate.run('u1', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run('u1', async () => 'next')).resolves.toBe('next');
  });

  test('a freed place goes to the waiting tenant with the fewest places, and a tenant whose line is full is refused at once', async () => {
    const gate = createAdmission({ limit: 3, waitMs: 5000, waitingPerTenant: 2, retryAfterSeconds: 1 });
    const order: string[] = [];
    const releases: (() => void)[] = [];
    const held = (tenant: string, label: string) =>
      gate.run(tenant, () => {
        order.push(label);
        return new Promise<void>((resolve) => releases.push(resolve));
      });
    const running = [held('noisy', 'n1'), held('noisy', 'n2'), held('noisy', 'n3'), held('noisy', 'n4'), held('noisy', 'n5')];
    const tooMany = held('noisy', 'n6');
    await expect(tooMany).rejects.toBeInstanceOf(TemporalBusyError);
    expect(gate).toMatchObject({ inFlight: 3, waiting: 2 });
    // The noisy tenant's line is full. The quiet one's share is 2 and noisy holds one place beyond its own:
    // quiet borrows that one at once, beyond the limit, and its second request waits.
    running.push(held('quiet', 'q1'), held('quiet', 'q2'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['n1', 'n2', 'n3', 'q1']);
    expect(gate).toMatchObject({ inFlight: 4, waiting: 3 });
    // n1 ends: the borrowed place is returned, nobody starts. n2 ends: noisy is below its share again, 1 and 1,
    // and n4 goes (the one served longest ago); then q2, then n5.
    releases.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['n1', 'n2', 'n3', 'q1']);
    for (let i = 0; i < 3; i++) {
      releases.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(order).toEqual(['n1', 'n2', 'n3', 'q1', 'n4', 'q2', 'n5']);
    for (const release of releases.splice(0)) release();
    await Promise.all(running);
    expect(gate).toMatchObject({ inFlight: 0, waiting: 0 });
  });

  test('while another tenant is active, a tenant holds at most its share and a place stays free for the other', async () => {
    const gate = createAdmission({ limit: 4, waitMs: 5000, waitingPerTenant: 10, retryAfterSeconds: 1 });
    const releases: (() => void)[] = [];
    const started: string[] = [];
    const held = (tenant: string, label: string) =>
      gate.run(tenant, () => {
        started.push(label);
        return new Promise<void>((resolve) => releases.push(resolve));
      });
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    // Alone, the noisy tenant may take every place.
    const running = [held('noisy', 'n1'), held('noisy', 'n2')];
    await tick();
    // The quiet tenant asks: from now on each holds at most 4 / 2 = 2 places.
    running.push(held('quiet', 'q1'));
    await tick();
    running.push(held('noisy', 'n3'), held('noisy', 'n4'));
    await tick();
    expect(started).toEqual(['n1', 'n2', 'q1']);
    expect(gate).toMatchObject({ inFlight: 3, waiting: 2 });
    // A place is free, and the quiet tenant's next request takes it at once.
    running.push(held('quiet', 'q2'));
    await tick();
    expect(started).toEqual(['n1', 'n2', 'q1', 'q2']);
    for (const release of releases.splice(0)) release();
    await tick();
    expect(started).toEqual(['n1', 'n2', 'q1', 'q2', 'n3', 'n4']);
    for (const release of releases.splice(0)) release();
    await Promise.all(running);
  });
});

/** What reaches Temporal from a send or an assign: a workflow's start, or a client's run's update-with-start. */
const HELD_CALLS: (string | symbol)[] = ['start', 'executeUpdateWithStart'];

/** The suite's Temporal client, whose workflow starts wait until `release()`: Temporal falling behind. */
function slowTemporal(temporal: Client) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const workflow = new Proxy(temporal.workflow, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (!HELD_CALLS.includes(property) || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await released;
        return value.apply(target, args);
      };
    },
  });
  const client = new Proxy(temporal, { get: (target, property, receiver) => (property === 'workflow' ? workflow : Reflect.get(target, property, receiver)) });
  return { client, release };
}

/** An API whose `gate` has one place, on a Temporal that holds every start until `release()`; stopped after `body`. */
async function withBusyApi(gate: 'messages' | 'assign', retryAfterSeconds: number, body: (api: Awaited<ReturnType<TestStack['startApi']>>, release: () => void) => Promise<void>) {
  const slow = slowTemporal(stack.temporal);
  const roomy = { limit: 10, waitMs: 50, waitingPerTenant: 10, retryAfterSeconds };
  const places = { messages: roomy, assign: roomy, leads: roomy, [gate]: { ...roomy, limit: 1 } };
  const api = await stack.startApi({ temporal: slow.client, admission: createAdmissions(places) });
  try {
    await body(api, slow.release);
  } finally {
    slow.release();
    await api.stop();
  }
}

test('a message beyond the places in flight is a 503 with Retry-After, and nothing of it is stored', async () => {
  const token = stack.token('busy-user');
  await withBusyApi('messages', 2, async (api, release) => {
    await api.api('POST', '/clients', { token, body: { _id: 'c1', phone: '+14155550100' } });
    const first = api.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'first' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await api.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'second' } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(refused.body).toMatchObject({ type: '/problems/unavailable', detail: 'The service is busy; try again in 2 s' });
    expect(await stack.prisma.message.count({ where: { business: stack.business, ownerId: 'busy-user' } })).toBe(1);

    release();
    expect((await first).status).toBe(202);
    const later = await api.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'second' } });
    expect(later.status).toBe(202);
  });
});

test('an assignment beyond the places in flight is a 503 with Retry-After, and records nothing', async () => {
  const token = stack.token('busy-assigner');
  await withBusyApi('assign', 1, async (api, release) => {
    await api.api('POST', '/clients', { token, body: { _id: 'c1' } });
    await api.api('POST', '/clients', { token, body: { _id: 'c2' } });
    await api.api('POST', '/agents', { token, body: { _id: 'a1' } });
    const first = api.api('POST', '/clients/c1/assign-agents', { token, body: { agents: [{ agent: 'a1' }] } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await api.api('POST', '/clients/c2/assign-agents', { token, body: { agents: [{ agent: 'a1' }] } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await stack.prisma.assignRequest.count({ where: { workflowId: { contains: `/${stack.business}/c2/` } } })).toBe(0);

    release();
    expect((await first).status).toBe(200);
    const listed = await api.api('GET', '/clients/c2/agents', { token });
    expect(listed.body.assignments).toEqual([]);
  });
});
