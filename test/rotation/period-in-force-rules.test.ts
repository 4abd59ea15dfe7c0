import { periodInForce } from '../../src/domain/rotation-row';

/* The rotation period an assignment shows as `current_period` (src/domain/rotation-row.ts): an active rotation's, while its covered time lasts. */

const NOW = new Date('2026-06-01T12:00:00.000Z');
const CURRENT = { agentId: 'a1', agentPk: 'pk-a1', position: 0, of: 2, from: '2026-06-01T11:00:00.000Z', workflowId: 'client/acme/c1' };
const later = new Date(NOW.getTime() + 1000);
const earlier = new Date(NOW.getTime() - 1000);

test.each([
  ['active', later, CURRENT, CURRENT],
  ['active', NOW, CURRENT, null],
  ['active', earlier, CURRENT, null],
  ['active', null, CURRENT, null],
  ['active', later, null, null],
  ['stopped', later, CURRENT, null],
] as const)('a rotation %s, covered until %s, its current period %j: in force %j', (status, coveredUntil, current, inForce) => {
  expect(periodInForce({ status, coveredUntil, current }, NOW)).toEqual(inForce);
});
