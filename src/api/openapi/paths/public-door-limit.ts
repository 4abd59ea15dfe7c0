import { problem } from '../components';

/** The 429 of the doors anyone may call without a token (PUBLIC_DOOR_*, docs/operations.md "HTTP settings"). */
export const publicDoorLimited = (extra = '') =>
  problem(
    429,
    'Over a budget of the unauthenticated doors, counted before any other work: `PUBLIC_DOOR_LIMIT_PER_SOURCE` requests a minute from one address, ' +
      '`PUBLIC_DOOR_UNVERIFIED_LIMIT_PER_SOURCE` a minute from one address not (yet) accepted by their signature or secret, or ' +
      '`PUBLIC_DOOR_UNVERIFIED_LIMIT_TOTAL` such requests a minute from all the addresses without an accepted delivery lately.' +
      extra +
      ' Try again after `Retry-After` seconds.',
    {
      perSource: { type: '/problems/rate-limited', detail: 'Too many requests: at most 6000 a minute from one address' },
      unverified: { type: '/problems/rate-limited', detail: 'Too many requests: at most 120 a minute from one address whose signature or secret is not (yet) accepted' },
      total: { type: '/problems/rate-limited', detail: 'Too many unverified requests: at most 1200 a minute from addresses without an accepted delivery' },
    },
    ['Retry-After'],
  );
