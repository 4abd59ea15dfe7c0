import { previousSecretSigns } from '../../src/domain/webhook-secrets';

/* A rotated webhook secret keeps signing beside the new one until its expiry (src/domain/webhook-secrets.ts). */

const NOW = new Date('2026-06-01T12:00:00.000Z');

test.each([
  ['kept, expiring later', 'old', new Date(NOW.getTime() + 1000), true],
  ['kept, expiring now', 'old', NOW, false],
  ['kept, expired', 'old', new Date(NOW.getTime() - 1000), false],
  ['kept, no expiry', 'old', null, false],
  ['none', null, new Date(NOW.getTime() + 1000), false],
] as const)('a previous secret %s: signs %s', (_case, previousSecret, previousSecretExpiresAt, signs) => {
  expect(previousSecretSigns({ previousSecret, previousSecretExpiresAt }, NOW)).toBe(signs);
});
