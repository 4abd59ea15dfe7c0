import { followedWriteStatus, LEAD_WRITE_STATUSES, leadFollowsHolder } from '../../src/domain/crm';

/* A CRM lead following its client's holder (src/domain/crm.ts): at which write-back statuses, and to which. */

const FOLLOWS = [
  ['pending', true],
  ['unmapped', true],
  ['written', true],
  ['failed', true],
  ['queued', false],
  ['rejected', false],
  ['canceled', false],
] as const;

test.each(FOLLOWS)('a lead %s follows the holder: %s', (status, follows) => {
  expect(leadFollowsHolder(status)).toBe(follows);
});

test('the cases cover every write-back status', () => {
  expect(FOLLOWS.map(([status]) => status).sort()).toEqual([...LEAD_WRITE_STATUSES].sort());
});

test.each([
  ['the agent has a CRM owner', 'owner-1', 'pending'],
  ['the agent has none', null, 'unmapped'],
] as const)('a lead that follows, when %s, goes %s', (_case, crmOwnerId, status) => {
  expect(followedWriteStatus(crmOwnerId)).toBe(status);
});
