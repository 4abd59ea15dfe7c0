import { assess, pick, EMPTY_STRATEGY_STATE, type MemberState, type RoutingStrategy, type StrategyState } from '../../src/domain';

/* The strategies over many picks, as the route transaction applies them (src/use-cases/routing/attempt.ts). */

const member = (agentId: string, weight = 1, extra: Partial<MemberState> = {}): MemberState => ({
  agentId,
  weight,
  presence: 'available',
  absent: false,
  timezone: null,
  workingHours: null,
  capacity: null,
  load: 0,
  ...extra,
});

function run(strategy: RoutingStrategy, members: MemberState[], picks: number, state: StrategyState = EMPTY_STRATEGY_STATE) {
  const picked: string[] = [];
  for (let i = 0; i < picks; i++) {
    const result = pick(strategy, members, assess(members, { capacity: null, working_hours: true }, new Date()), state)!;
    picked.push(result.agent);
    state = result.state;
  }
  return { picked, state };
}

const share = (picked: string[], agent: string) => picked.filter((p) => p === agent).length / picked.length;

test('weights 3:1 over 1,000 routes: shares within 2 points of 75% and 25%', () => {
  const { picked } = run('weighted', [member('a', 3), member('b', 1)], 1000);
  expect(Math.abs(share(picked, 'a') - 0.75)).toBeLessThanOrEqual(0.02);
  expect(Math.abs(share(picked, 'b') - 0.25)).toBeLessThanOrEqual(0.02);
});

test('an agent back from a week\'s absence gets no burst: its share of the next picks is its weight\'s, never a run of catch-up', () => {
  const b = member('b', 1);
  let { state } = run('weighted', [member('a', 1), b], 10);
  // A week away, during which a takes 500 clients.
  ({ state } = run('weighted', [member('a', 1), { ...b, absent: true }], 500, state));
  const { picked } = run('weighted', [member('a', 1), b], 10, state);
  expect(picked.filter((p) => p === 'b')).toHaveLength(5);
  expect(picked.join('')).not.toMatch(/bb/);
});

test('round robin over three agents: counts differ by at most one, skipping one that is not eligible', () => {
  const { picked } = run('round_robin', [member('a'), member('b'), member('c')], 100);
  const counts = ['a', 'b', 'c'].map((x) => picked.filter((p) => p === x).length);
  expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  expect(run('round_robin', [member('a'), member('b', 1, { presence: 'away' }), member('c')], 4).picked).toEqual(['a', 'c', 'a', 'c']);
});

test('least loaded takes the lowest load, ties in round-robin order; at capacity is never picked', () => {
  const members = [member('a', 1, { load: 3 }), member('b', 1, { load: 1 }), member('c', 1, { load: 1, capacity: 1 })];
  const candidates = assess(members, { capacity: 5, working_hours: true }, new Date());
  expect(candidates.map((c) => c.reasons)).toEqual([[], [], ['at_capacity']]);
  expect(pick('least_loaded', members, candidates, EMPTY_STRATEGY_STATE)!.agent).toBe('b');
  const tied = [member('x'), member('y')];
  expect(pick('least_loaded', tied, assess(tied, { capacity: null, working_hours: true }, new Date()), { last: 'x', credits: {} })!.agent).toBe('y');
});
