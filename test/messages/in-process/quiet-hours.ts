import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createReconcileActivities } from '../../../src/activities/housekeeping/reconcile';
import { DELAY_FORMS } from '../../../src/use-cases/messages/delay';
import { expectProblem } from '../../support/helpers';
import { startTestStack, type TestStack } from '../../support/stack';
import { untilListedEnded } from '../../support/listed-ended';

/*
 * Quiet hours through the API, on the real stack: `send_window` on POST /messages, read in its own zone
 * or the client's; a message due outside it stays scheduled with `deferred_until` and goes out when the
 * window opens, keeping the `send_at` it was asked for.
 */

let stack: TestStack;
const PHONE = '+14155550123';
const MINUTE = 60_000;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

/** A fresh user per test, so that "nothing stored" is an empty listing. */
const newUser = () => stack.token(`user-${randomUUID()}`);
const send = (token: string, body: object, headers: Record<string, string> = {}) =>
  stack.api('POST', '/messages', { token, body: { message_type: 'text', text_message: 'Your table is ready', ...body }, headers });
const view = async (token: string, id: string) => (await stack.api('GET', `/messages/${id}`, { token })).body;
const hhmm = (at: number) => new Date(at).toISOString().slice(11, 16);
/** The wall-clock time `HH:MM` of `iso` in `zone`, read by a formatter of its own. */
const wallClock = (iso: string, zone: string) => new Date(iso).toLocaleTimeString('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hour12: false });

describe('validation', () => {
  let token: string;
  beforeAll(async () => {
    token = newUser();
    await stack.api('POST', '/clients', { token, body: { _id: 'no-zone', phone: PHONE } });
  });

  test.each<[string, object, string]>([
    ['not an object', { client_phone: PHONE, send_window: '08:00-21:00' }, 'Invalid send_window: must be an object such as {"from": "08:00", "to": "21:00", "timezone": "America/New_York"}'],
    ['an array', { client_phone: PHONE, send_window: ['08:00', '21:00'] }, 'Invalid send_window: must be an object such as {"from": "08:00", "to": "21:00", "timezone": "America/New_York"}'],
    ['from missing', { client_phone: PHONE, send_window: { to: '21:00', timezone: 'UTC' } }, 'Invalid send_window.from: must be a time of day HH:MM, 00:00 to 23:59'],
    ['from without a leading zero', { client_phone: PHONE, send_window: { from: '8:00', to: '21:00', timezone: 'UTC' } }, 'Invalid send_window.from: must be a time of day HH:MM, 00:00 to 23:59'],
    ['to at 24:00', { client_phone: PHONE, send_window: { from: '08:00', to: '24:00', timezone: 'UTC' } }, 'Invalid send_window.to: must be a time of day HH:MM, 00:00 to 23:59'],
    ['to a number', { client_phone: PHONE, send_window: { from: '08:00', to: 2100, timezone: 'UTC' } }, 'Invalid send_window.to: must be a time of day HH:MM, 00:00 to 23:59'],
    ['from equal to to', { client_phone: PHONE, send_window: { from: '08:00', to: '08:00', timezone: 'UTC' } }, 'Invalid send_window: from and to must differ'],
    ['an unknown zone', { client_phone: PHONE, send_window: { from: '08:00', to: '21:00', timezone: 'Moon/Tranquility' } }, 'Invalid send_window.timezone: must be an IANA time zone such as America/New_York'],
    ['a UTC offset for a zone', { client_phone: PHONE, send_window: { from: '08:00', to: '21:00', timezone: '-05:00' } }, 'Invalid send_window.timezone: must be an IANA time zone such as America/New_York'],
    ['no zone and no client', { client_phone: PHONE, send_window: { from: '08:00', to: '21:00' } }, 'Missing send_window.timezone: a message without a client must name it'],
    ['no zone and a client without one', { client: 'no-zone', send_window: { from: '08:00', to: '21:00' } }, 'Client no-zone has no timezone: send send_window.timezone'],
  ])('%s → 400, nothing stored', async (_name, body, detail) => {
    expectProblem(await send(token, body), 400, detail);
    expect((await stack.api('GET', '/messages', { token })).body.messages).toEqual([]);
  });

  test('the delay is checked before the window', async () => {
    expectProblem(await send(token, { client_phone: PHONE, delay: 'soon', send_window: { from: 'x' } }), 400, 'Invalid delay', DELAY_FORMS);
  });

  test('a null send_window is no window', async () => {
    const user = newUser();
    const res = await send(user, { client_phone: PHONE, delay: '1h', send_window: null });
    expect(res.status).toBe(202);
    expect(await view(user, res.body._id)).toEqual(expect.objectContaining({ status: 'scheduled', send_window: null, deferred_until: null }));
  });
});

describe('deferred_until', () => {
  test('a message due inside its window is not deferred, and shows its window as given', async () => {
    const token = newUser();
    const now = Date.now();
    const window = { from: hhmm(now - 60 * MINUTE), to: hhmm(now + 60 * MINUTE), timezone: 'UTC' };
    const res = await send(token, { client_phone: PHONE, delay: '1m', send_window: window });
    expect(res.status).toBe(202);
    expect(await view(token, res.body._id)).toEqual(
      expect.objectContaining({ status: 'scheduled', send_window: { from: window.from, to: window.to, timezone: 'UTC' }, deferred_until: null }),
    );
  });

  /** A one-hour window opening `ms` from now, in `zone`'s wall-clock time. */
  const hourOpeningIn = (ms: number, zone: string) => {
    const opensAt = Date.now() + ms;
    return { opensAt, from: wallClock(new Date(opensAt).toISOString(), zone), to: wallClock(new Date(opensAt + 60 * MINUTE).toISOString(), zone) };
  };

  test('outside its window, in the client’s zone: deferred to the window’s next opening there, send_at kept', async () => {
    const token = newUser();
    await stack.api('POST', '/clients', { token, body: { _id: 'kolkata', phone: PHONE, timezone: 'Asia/Kolkata' } });
    const { opensAt, from, to } = hourOpeningIn(3 * 60 * MINUTE, 'Asia/Kolkata');
    const res = await send(token, { client: 'kolkata', send_window: { from, to } });
    expect(res.status).toBe(202);
    const message = await view(token, res.body._id);
    expect(message).toEqual(expect.objectContaining({ status: 'scheduled', send_at: res.body.send_at, send_window: { from, to } }));
    expect(wallClock(message.deferred_until, 'Asia/Kolkata')).toBe(from);
    expect(Date.parse(message.deferred_until)).toBeGreaterThan(opensAt - MINUTE);
    expect(Date.parse(message.deferred_until)).toBeLessThanOrEqual(opensAt);
    expect(Date.parse(message.send_at)).toBeLessThan(Date.parse(message.deferred_until));
  });

  test('the window’s own zone wins over the client’s', async () => {
    const token = newUser();
    await stack.api('POST', '/clients', { token, body: { _id: 'ny', phone: PHONE, timezone: 'America/New_York' } });
    const { from, to } = hourOpeningIn(5 * 60 * MINUTE, 'Asia/Tokyo');
    const res = await send(token, { client: 'ny', send_window: { from, to, timezone: 'Asia/Tokyo' } });
    const message = await view(token, res.body._id);
    expect(wallClock(message.deferred_until, 'Asia/Tokyo')).toBe(from);
    expect(message.send_window).toEqual({ from, to, timezone: 'Asia/Tokyo' });
  });

  test('a repeated Idempotency-Key with the same window replays; with another window it is 422', async () => {
    const token = newUser();
    const body = { client_phone: PHONE, send_window: { from: '08:00', to: '21:00', timezone: 'Europe/London' } };
    const first = await send(token, body, { 'Idempotency-Key': 'windowed' });
    const again = await send(token, body, { 'Idempotency-Key': 'windowed' });
    expect([first.status, again.status, again.body._id]).toEqual([202, 202, first.body._id]);
    const other = await send(token, { ...body, send_window: { ...body.send_window, to: '20:00' } }, { 'Idempotency-Key': 'windowed' });
    expectProblem(other, 422, 'Idempotency-Key was already used with a different request');
  });

  /*
   * That the run then sends at `deferred_until`, not before, keeping `send_at` and `deferred_until`, is the
   * send-message workflow's on the time-skipping server (messages/workflow, "a message its send window
   * deferred …"); when the window opens is the rule's table (messages/send-window).
   */
  test('a message due outside its window stays scheduled, its run’s first task due when the window opens', async () => {
    const token = newUser();
    // The window opens on a whole minute (UTC), an hour or so away, and lasts a minute.
    const opensAt = Math.ceil((Date.now() + 60 * MINUTE) / MINUTE) * MINUTE;
    const res = await send(token, { client_phone: PHONE, send_window: { from: hhmm(opensAt), to: hhmm(opensAt + MINUTE), timezone: 'UTC' } });
    expect(res.status).toBe(202);
    const waiting = await view(token, res.body._id);
    expect(waiting).toEqual(expect.objectContaining({ status: 'scheduled', deferred_until: new Date(opensAt).toISOString(), sent_at: null }));
    expect(Date.parse(waiting.send_at)).toBeLessThan(opensAt);

    const run = await stack.temporal.workflow.getHandle(res.body.workflow_id).describe();
    expect(await run.staticSummary()).toBe(`Text message ${res.body._id}, send at ${waiting.send_at}, deferred until ${waiting.deferred_until} by its send window`);
    // Temporal's start delay: no task before the opening, give or take the moment the start took.
    expect(run.executionTime!.getTime()).toBeGreaterThanOrEqual(opensAt - 1000);
    expect(run.executionTime!.getTime()).toBeLessThan(opensAt + 30_000);
  });

  test('a deferred message whose run was terminated is restarted by the reconciler to wait for its window, not sent early', async () => {
    const token = newUser();
    const opensAt = Date.now() + 2 * 60 * MINUTE;
    const res = await send(token, { client_phone: PHONE, send_window: { from: hhmm(opensAt), to: hhmm(opensAt + 60 * MINUTE), timezone: 'UTC' } });
    const deferredUntil = (await view(token, res.body._id)).deferred_until;
    expect(deferredUntil).not.toBeNull();
    const run = stack.temporal.workflow.getHandle(res.body.workflow_id);
    const terminatedRunId = (await run.describe()).runId;
    await run.terminate('operator test');
    await untilListedEnded(stack.temporal, run.workflowId);

    const reconciler = createReconcileActivities({ prisma: stack.prisma, temporal: stack.temporal, taskQueue: stack.taskQueue });
    const pass = await new MockActivityEnvironment().run(reconciler.reconcileOrphans, { graceMs: 0, business: stack.business, full: true });
    expect(pass).toMatchObject({ messagesRestarted: 1 });

    const restarted = await stack.temporal.workflow.getHandle(res.body.workflow_id).describe();
    expect({ status: restarted.status.name, newRun: restarted.runId !== terminatedRunId }).toEqual({ status: 'RUNNING', newRun: true });
    // Its first task is due at deferred_until (the start delay), give or take the moment of the restart.
    expect(Math.abs(restarted.executionTime!.getTime() - Date.parse(deferredUntil))).toBeLessThan(MINUTE);
    expect(await restarted.staticSummary()).toContain(`deferred until ${deferredUntil} by its send window`);
    expect(await view(token, res.body._id)).toEqual(expect.objectContaining({ status: 'scheduled', sent_at: null }));
  });
});
