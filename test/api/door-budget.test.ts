import { DoorBudget, type DoorLimits } from '../../src/api/http/public-doors';

/* The unauthenticated doors' budgets as a rule: a clock in hand, no server. */

const LIMITS: DoorLimits = { perSource: 5, failedPerSource: 2, failedTotal: 3 };

function budgetAt(limits: DoorLimits = LIMITS) {
  const clock = { now: 0 };
  return { budget: new DoorBudget(limits, () => clock.now), clock };
}

/** Admits a request from `source` and answers it `status`; what the door said. */
function knock(budget: DoorBudget, source: string, status: number): string {
  const admission = budget.admit(source);
  if (!admission.admitted) return `429 ${admission.retryAfterSeconds}s: ${admission.detail}`;
  admission.settle(status);
  return 'admitted';
}

test.each([
  ['forged requests from one address stop at its failed allowance', [['a', 401], ['a', 403], ['a', 401]], /^429 60s: Too many requests: at most 2 a minute from one address whose signature/],
  ['accepted deliveries give their place back: only the per-address total stops them', [['a', 200], ['a', 200], ['a', 200], ['a', 200], ['a', 200], ['a', 200]], /^429 60s: Too many requests: at most 5 a minute from one address$/],
  ['a 4xx other than 401/403 (a bad body) is not counted as a forgery', [['a', 400], ['a', 400], ['a', 400], ['a', 400], ['a', 400]], /^admitted$/],
  ['forgeries from many addresses stop at the total', [['a', 401], ['b', 401], ['c', 401], ['d', 401]], /^429 60s: Too many unverified requests: at most 3 a minute/],
] as const)('%s', (_name, requests, last) => {
  const { budget } = budgetAt();
  const answers = requests.map(([source, status]) => knock(budget, source, status));
  expect(answers.slice(0, -1).every((answer) => answer === 'admitted')).toBe(true);
  expect(answers.at(-1)).toMatch(last);
});

test('an address whose delivery was accepted lately still gets in once the total is spent by others', () => {
  const { budget } = budgetAt();
  expect(knock(budget, 'hubspot', 200)).toBe('admitted');
  for (const source of ['x', 'y', 'z']) expect(knock(budget, source, 401)).toBe('admitted');
  expect(knock(budget, 'stranger', 200)).toMatch(/^429/);
  expect(knock(budget, 'hubspot', 200)).toBe('admitted');
});

test('the counts start again a minute after their first request, and Retry-After says how long is left', () => {
  const { budget, clock } = budgetAt();
  knock(budget, 'a', 401);
  clock.now = 20_000;
  knock(budget, 'a', 401);
  expect(knock(budget, 'a', 401)).toMatch(/^429 40s/);
  clock.now = 60_000;
  expect(knock(budget, 'a', 401)).toBe('admitted');
});

test('a budget of 0 is off', () => {
  const { budget } = budgetAt({ perSource: 0, failedPerSource: 0, failedTotal: 0 });
  for (let i = 0; i < 100; i++) expect(knock(budget, 'a', 401)).toBe('admitted');
});
