import { randomUUID } from 'node:crypto';
import { isWithinWorkingHours, nextShiftStart } from '../../../src/domain';
import { expectProblem } from '../../support/helpers';
import { startTestStack, type TestStack } from '../../support/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const newUser = () => stack.token(`user-${randomUUID()}`);
const NINE_TO_FIVE = { mon: [['09:00', '17:00']], tue: [['09:00', '17:00']], wed: [['09:00', '17:00']], thu: [['09:00', '17:00']], fri: [['09:00', '17:00']] } as const;

describe('working hours are wall-clock times in the agent\'s zone, across daylight saving', () => {
  const hours = { mon: [['09:00', '17:00'] as [string, string]] };
  test('09:00-17:00 in New York is 14:00-22:00 UTC in winter and 13:00-21:00 UTC in summer', () => {
    // 2026-03-02 and 2026-03-09 are Mondays either side of the change of 2026-03-08.
    expect(isWithinWorkingHours(hours, 'America/New_York', new Date('2026-03-02T13:30:00Z'))).toBe(false);
    expect(isWithinWorkingHours(hours, 'America/New_York', new Date('2026-03-02T14:30:00Z'))).toBe(true);
    expect(isWithinWorkingHours(hours, 'America/New_York', new Date('2026-03-09T13:30:00Z'))).toBe(true);
    expect(isWithinWorkingHours(hours, 'America/New_York', new Date('2026-03-09T21:30:00Z'))).toBe(false);
    expect(isWithinWorkingHours(null, null, new Date())).toBe(true);
  });

  test('the next shift start is found on the far side of a change', () => {
    expect(nextShiftStart(hours, 'America/New_York', new Date('2026-03-03T00:00:00Z'))?.toISOString()).toBe('2026-03-09T13:00:00.000Z');
    expect(nextShiftStart(hours, 'Europe/Paris', new Date('2026-10-20T00:00:00Z'))?.toISOString()).toBe('2026-10-26T08:00:00.000Z');
    // A start inside the spring gap (02:30 does not exist on 2026-03-08 in New York) moves forward by the gap, to 03:30 EDT, as java.time does.
    expect(nextShiftStart({ sun: [['02:30', '05:00']] }, 'America/New_York', new Date('2026-03-07T12:00:00Z'))?.toISOString()).toBe('2026-03-08T07:30:00.000Z');
  });
});

describe('GET and PATCH /agents/{_id}', () => {
  test('a new agent is always working, available, with the policy\'s capacity and no load', async () => {
    const token = newUser();
    await stack.api('POST', '/agents', { token, body: { _id: 'a1', name: 'Grace' } });
    const res = await stack.api('GET', '/agents/a1', { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ _id: 'a1', name: 'Grace', timezone: null, working_hours: null, presence: 'available', capacity: null, load: 0, created_at: expect.any(String) });
  });

  test('a merge patch changes the fields it names, keeps the others, and null puts one back to its default', async () => {
    const token = newUser();
    await stack.api('POST', '/agents', { token, body: { _id: 'a1', name: 'Grace' } });
    const first = await stack.api('PATCH', '/agents/a1', { token, body: { timezone: 'Europe/Paris', working_hours: NINE_TO_FIVE, presence: 'away', capacity: 3 } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ name: 'Grace', timezone: 'Europe/Paris', working_hours: NINE_TO_FIVE, presence: 'away', capacity: 3 });
    const second = await stack.api('PATCH', '/agents/a1', { token, body: { presence: null, capacity: null } });
    expect(second.body).toMatchObject({ name: 'Grace', timezone: 'Europe/Paris', working_hours: NINE_TO_FIVE, presence: 'available', capacity: null });
    expect((await stack.api('GET', '/agents/a1', { token })).body).toEqual(second.body);
  });

  test('load counts the agent\'s active assignments, whatever made them', async () => {
    const token = newUser();
    await stack.api('POST', '/agents', { token, body: { _id: 'a1' } });
    for (const c of ['c1', 'c2']) {
      await stack.api('POST', '/clients', { token, body: { _id: c } });
      expect((await stack.api('POST', `/clients/${c}/assign-agents`, { token, body: { agents: [{ agent: 'a1' }] } })).status).toBe(200);
    }
    expect((await stack.api('GET', '/agents/a1', { token })).body.load).toBe(2);
    await stack.api('DELETE', '/clients/c1/agents/a1', { token });
    expect((await stack.api('GET', '/agents/a1', { token })).body.load).toBe(1);
    expect((await stack.api('GET', '/agents', { token })).body.agents[0].load).toBe(1);
  });

  test.each([
    [{ timezone: 'Mars/Olympus' }, /^Invalid timezone: /],
    [{ presence: 'busy' }, /^Invalid presence: /],
    [{ capacity: -1 }, /^Invalid capacity: /],
    [{ capacity: 1.5 }, /^Invalid capacity: /],
    [{ working_hours: { mon: [['17:00', '09:00']] }, timezone: 'UTC' }, 'Invalid working_hours.mon.0: must end after it starts (split a night shift at midnight)'],
    [{ working_hours: { mon: [['9:00', '17:00']] }, timezone: 'UTC' }, 'Invalid working_hours.mon.0.0: must be HH:MM between 00:00 and 24:00'],
    [{ working_hours: { monday: [] }, timezone: 'UTC' }, 'Unknown field: working_hours.monday'],
    [{ working_hours: NINE_TO_FIVE }, 'Invalid working_hours: needs the agent\'s timezone (an IANA name such as Europe/Paris)'],
    [[], 'Invalid request body: must be a JSON object (a merge patch)'],
  ])('refuses %j with a 400 naming the field, changing nothing', async (body, detail) => {
    const token = newUser();
    await stack.api('POST', '/agents', { token, body: { _id: 'a1' } });
    const before = (await stack.api('GET', '/agents/a1', { token })).body;
    expectProblem(await stack.api('PATCH', '/agents/a1', { token, body }), 400, detail);
    expect((await stack.api('GET', '/agents/a1', { token })).body).toEqual(before);
  });

  test('another user\'s agent, or one that does not exist, is a 404', async () => {
    const alice = newUser();
    await stack.api('POST', '/agents', { token: alice, body: { _id: 'a1' } });
    const bob = newUser();
    expectProblem(await stack.api('GET', '/agents/a1', { token: bob }), 404, 'Agent not found');
    expectProblem(await stack.api('PATCH', '/agents/a1', { token: bob, body: { presence: 'away' } }), 404, 'Agent not found');
    expectProblem(await stack.api('GET', '/agents/a1/absences', { token: bob }), 404, 'Agent not found');
    expect((await stack.api('GET', '/agents/a1', { token: alice })).body.presence).toBe('available');
  });
});

describe('absences', () => {
  test('POST answers 201 with the absence, GET lists those in progress or to come, DELETE ends one', async () => {
    const token = newUser();
    await stack.api('POST', '/agents', { token, body: { _id: 'a1' } });
    const now = Date.now();
    const current = await stack.api('POST', '/agents/a1/absences', { token, body: { from: new Date(now - 3600_000).toISOString(), until: new Date(now + 3600_000).toISOString(), note: 'sick' } });
    expect(current.status).toBe(201);
    expect(current.body).toEqual({ _id: expect.any(String), from: new Date(now - 3600_000).toISOString(), until: new Date(now + 3600_000).toISOString(), note: 'sick' });
    const later = await stack.api('POST', '/agents/a1/absences', { token, body: { from: '2099-01-01', until: '2099-01-08' } });
    expect((await stack.api('GET', '/agents/a1/absences', { token })).body.absences.map((a: { _id: string }) => a._id)).toEqual([current.body._id, later.body._id]);

    const ended = await stack.api('DELETE', `/agents/a1/absences/${current.body._id}`, { token });
    expect(ended.status).toBe(200);
    expect(Date.parse(ended.body.until)).toBeLessThanOrEqual(Date.now());
    expect((await stack.api('DELETE', `/agents/a1/absences/${later.body._id}`, { token })).status).toBe(200);
    expect((await stack.api('GET', '/agents/a1/absences', { token })).body).toEqual({ absences: [] });
    expectProblem(await stack.api('DELETE', `/agents/a1/absences/${later.body._id}`, { token }), 404, 'Absence not found');
    expectProblem(await stack.api('DELETE', '/agents/a1/absences/not-a-uuid', { token }), 404, 'Absence not found');
  });

  test.each([
    [{ until: '2099-01-01' }, /^Invalid from: /],
    [{ from: 'soon', until: '2099-01-01' }, 'Invalid from: must be an ISO 8601 date or date-time'],
    [{ from: '2099-01-02', until: '2099-01-01' }, 'Invalid until: must be after from'],
    [{ from: '2020-01-01', until: '2020-01-02' }, 'Invalid until: must be in the future'],
    [{ from: '2099-01-01', until: '2099-01-02', note: 'x'.repeat(501) }, /^Invalid note: /],
  ])('refuses %j with a 400', async (body, detail) => {
    const token = newUser();
    await stack.api('POST', '/agents', { token, body: { _id: 'a1' } });
    expectProblem(await stack.api('POST', '/agents/a1/absences', { token, body }), 400, detail);
    expect((await stack.api('GET', '/agents/a1/absences', { token })).body).toEqual({ absences: [] });
  });
});
