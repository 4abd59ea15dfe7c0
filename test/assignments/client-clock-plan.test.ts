import { CLOCK_KINDS, MAX_TIMER_CHUNK_MS, type ClockKind } from '../../src/domain';
import { earliestClock, planClocks, type ClockView } from '../../src/domain/client-clock-plan';

/* The client's run's clock plan (src/domain/client-clock-plan.ts): what the run does next, for what it holds. */

const NOW = Date.parse('2026-03-02T10:00:00.000Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();
const MIN = 60_000;
const DAY = 24 * 60 * MIN;

const assignment = (agentId: string, inMs: number) => ({ agentId, agentPk: `pk-${agentId}`, dtUntil: at(inMs) });
const response = (decisionId: string, inMs: number, dueAt: string | null = at(inMs)) => ({ decisionId, dueAt, wakeAt: NOW + inMs });
const rotation = (rotationKey: string, inMs: number) => ({
  rotationKey,
  state: 'active' as const,
  version: 1,
  nextChangeAt: at(inMs),
  current: null,
  next: null,
  wakeAt: NOW + inMs,
});
const conversation = (conversationId: string, inMs: number, reason: 'snooze' | 'overdue' = 'snooze') => ({ conversationId, reason, dueAt: at(inMs), wakeAt: NOW + inMs });

function view(held: Partial<ClockView> & { staleKinds?: ClockKind[] } = {}): ClockView {
  const { staleKinds = [], ...rest } = held;
  return {
    stale: new Set(staleKinds),
    recording: false,
    nowMs: NOW,
    assignments: [],
    firstResponses: [],
    rotations: [],
    conversations: [],
    history: { length: 10, limit: 1000, continueAsNewSuggested: false },
    jitterMs: 0,
    ...rest,
  };
}

describe('stale rows are read before anything is due or slept on', () => {
  test.each<[string, Partial<ClockView> & { staleKinds?: ClockKind[] }, string]>([
    ['a new run (every kind stale) reads them all in one step', { staleKinds: [...CLOCK_KINDS] }, 'readKinds'],
    ['two kinds stale: one read of both', { staleKinds: ['conversations', 'assignments'] }, 'readKinds'],
    ['the rotations alone: stepped', { staleKinds: ['rotations'] }, 'advanceRotations'],
    ['the assignments alone: re-read', { staleKinds: ['assignments'] }, 'loadAssignments'],
    ['the assignments alone while a batch is recorded: the batch\'s read stands for a second one', { staleKinds: ['assignments'], recording: true }, 'awaitRecording'],
    ['the first responses alone: stepped', { staleKinds: ['firstResponses'] }, 'stepFirstResponses'],
    ['the conversations alone: stepped', { staleKinds: ['conversations'] }, 'stepConversations'],
    ['stale rows go before a due expiry', { staleKinds: ['conversations'], assignments: [assignment('a1', -MIN)] }, 'stepConversations'],
    ['stale rows go before a long history', { staleKinds: ['assignments'], history: { length: 5000, limit: 1000, continueAsNewSuggested: true } }, 'loadAssignments'],
  ])('%s', (_name, held, step) => {
    expect(planClocks(view(held))).toMatchObject({ step, rowsRead: false });
  });

  test('a read of several kinds names them in the order they went stale', () => {
    expect(planClocks(view({ staleKinds: ['conversations', 'rotations', 'assignments'] }))).toEqual({ step: 'readKinds', kinds: ['conversations', 'rotations', 'assignments'], rowsRead: false });
  });
});

describe('with every row read, what is due now comes first', () => {
  test.each<[string, Partial<ClockView>, string]>([
    ['an assignment at its dt_until expires', { assignments: [assignment('a1', 0)] }, 'expireAssignments'],
    ['an assignment a second short of it does not', { assignments: [assignment('a1', 1000)] }, 'sleep'],
    ['a rotation at its boundary steps before the expiry due with it', { assignments: [assignment('a1', 0)], rotations: [rotation('r1', 0)] }, 'advanceRotations'],
    ['an expiry goes before a due first response', { assignments: [assignment('a1', -1)], firstResponses: [response('d1', -1)] }, 'expireAssignments'],
    ['a due first response goes before a due conversation', { firstResponses: [response('d1', 0)], conversations: [conversation('v1', 0)] }, 'stepFirstResponses'],
    ['a snooze that ended steps the conversations', { conversations: [conversation('v1', -5)] }, 'stepConversations'],
    ['a due clock goes before a long history', { assignments: [assignment('a1', 0)], history: { length: 5000, limit: 1000, continueAsNewSuggested: false } }, 'expireAssignments'],
    ['a due clock goes before a move to a newer version', { assignments: [assignment('a1', 0)], history: { length: 12, limit: 1000, continueAsNewSuggested: false, targetVersionChanged: true } }, 'expireAssignments'],
  ])('%s', (_name, held, step) => {
    expect(planClocks(view(held))).toMatchObject({ step, rowsRead: true });
  });
});

describe('nothing due: the run sleeps until its earliest clock, continues as new, or ends', () => {
  test('no clock at all: idle (the run ends once its handlers are done)', () => {
    expect(planClocks(view())).toEqual({ step: 'idle', rowsRead: true });
  });

  test('no clock and a long history: idle, not a new run', () => {
    expect(planClocks(view({ history: { length: 5000, limit: 1000, continueAsNewSuggested: true } }))).toEqual({ step: 'idle', rowsRead: true });
  });

  test('no clock and a newer version as its target: idle, not a new run (the next client\'s run starts on the new version)', () => {
    expect(planClocks(view({ history: { length: 12, limit: 1000, continueAsNewSuggested: false, targetVersionChanged: true } }))).toEqual({ step: 'idle', rowsRead: true });
  });

  test.each([
    ['the history reached its limit', 'continueAsNew', { length: 1000, limit: 1000, continueAsNewSuggested: false }],
    ['the server suggests it', 'continueAsNew', { length: 12, limit: 1000, continueAsNewSuggested: true }],
    ['one event short of the limit', 'sleep', { length: 999, limit: 1000, continueAsNewSuggested: false }],
    ['a newer Worker Deployment Version is its target (the next run starts there)', 'continueAsNew', { length: 12, limit: 1000, continueAsNewSuggested: false, targetVersionChanged: true }],
    ['its own version still the target', 'sleep', { length: 12, limit: 1000, continueAsNewSuggested: false, targetVersionChanged: false }],
  ])('a clock ahead and %s: %s', (_name, step, history) => {
    expect(planClocks(view({ assignments: [assignment('a1', DAY)], history })).step).toBe(step);
  });

  test.each<[string, Partial<ClockView>, { sleepMs: number; summary: string }]>([
    ['an assignment\'s dt_until', { assignments: [assignment('a1', 10 * MIN), assignment('a2', DAY)] }, { sleepMs: 10 * MIN, summary: `Expire a1 at dt_until ${at(10 * MIN)}` }],
    [
      'a first response due before it',
      { assignments: [assignment('a1', DAY)], firstResponses: [response('d1', 5 * MIN)] },
      { sleepMs: 5 * MIN, summary: `First response of decision d1 due at ${at(5 * MIN)}` },
    ],
    ['a first response whose owner has no working time ahead', { firstResponses: [response('d1', 60 * MIN, null)] }, { sleepMs: 60 * MIN, summary: 'Decision d1: owner has no working time ahead' }],
    ['a rotation\'s boundary', { assignments: [assignment('a1', DAY)], rotations: [rotation('r1', 2 * MIN)] }, { sleepMs: 2 * MIN, summary: `Rotation's next period at ${at(2 * MIN)}` }],
    ['a snooze\'s end', { conversations: [conversation('v1', 3 * MIN)] }, { sleepMs: 3 * MIN, summary: `Conversation v1 snoozed until ${at(3 * MIN)}` }],
    ['a reply clock', { conversations: [conversation('v1', 3 * MIN, 'overdue')] }, { sleepMs: 3 * MIN, summary: `Conversation v1 due for an answer at ${at(3 * MIN)}` }],
    ['a tie: the first kind listed (assignments, first responses, rotations, conversations)', { assignments: [assignment('a1', MIN)], rotations: [rotation('r1', MIN)] }, { sleepMs: MIN, summary: `Expire a1 at dt_until ${at(MIN)}` }],
  ])('the timer is set for %s', (_name, held, expected) => {
    expect(planClocks(view(held))).toEqual({ step: 'sleep', ...expected, wakeAt: at(expected.sleepMs), rowsRead: true });
  });

  test('a dt_until beyond one chunk: one chunk less the run\'s jitter, named as a chunk', () => {
    const jitterMs = 3 * 60 * MIN;
    const sleepMs = MAX_TIMER_CHUNK_MS - jitterMs;
    expect(planClocks(view({ assignments: [assignment('a1', 200 * DAY)], jitterMs }))).toEqual({ step: 'sleep', sleepMs, wakeAt: at(sleepMs), summary: `Wait one chunk, until ${at(sleepMs)}`, rowsRead: true });
  });

  test('a dt_until exactly one chunk away is reached in one timer, without jitter', () => {
    expect(planClocks(view({ assignments: [assignment('a1', MAX_TIMER_CHUNK_MS)], jitterMs: 5000 }))).toMatchObject({ step: 'sleep', sleepMs: MAX_TIMER_CHUNK_MS, summary: `Expire a1 at dt_until ${at(MAX_TIMER_CHUNK_MS)}` });
  });

  test('only the earliest assignment and the earliest conversation hold the timer (their lists come sorted)', () => {
    expect(earliestClock(view({ assignments: [assignment('a2', 2 * MIN), assignment('a1', MIN)] }))?.summary).toBe(`Expire a2 at dt_until ${at(2 * MIN)}`);
    expect(earliestClock(view({ conversations: [conversation('v2', 2 * MIN), conversation('v1', MIN)] }))?.summary).toBe(`Conversation v2 snoozed until ${at(2 * MIN)}`);
  });
});

test('the example of docs/design.md: a rotation\'s boundary at 10:05 before a1\'s dt_until at 10:10, then at the same instant as it', () => {
  const held = { assignments: [assignment('a1', 10 * MIN)], rotations: [rotation('r1', 5 * MIN)] };
  expect(planClocks(view(held))).toEqual({ step: 'sleep', sleepMs: 300000, wakeAt: '2026-03-02T10:05:00.000Z', summary: "Rotation's next period at 2026-03-02T10:05:00.000Z", rowsRead: true });
  const atBoundary = { ...held, nowMs: NOW + 5 * MIN, assignments: [assignment('a1', 5 * MIN)] };
  expect(planClocks(view(atBoundary)).step).toBe('advanceRotations');
  expect(planClocks(view({ ...atBoundary, rotations: [rotation('r1', 65 * MIN)] })).step).toBe('expireAssignments');
});
