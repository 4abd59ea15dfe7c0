import { createHash } from 'node:crypto';
import type { MessageFingerprint } from './request';

/** SHA-256 of the canonical request, so `300`, `5m` and `PT5M`, or two spellings of one phone, match. */
export function requestHash(fingerprint: MessageFingerprint): string {
  const canonical = JSON.stringify([
    fingerprint.message_type,
    fingerprint.client,
    fingerprint.client_phone,
    fingerprint.client_name,
    fingerprint.text_message,
    [fingerprint.delay.years, fingerprint.delay.months, fingerprint.delay.days, fingerprint.delay.milliseconds],
    // Absent without a window, so that such a request keeps the hash it had before windows existed.
    ...(fingerprint.send_window ? [[fingerprint.send_window.from, fingerprint.send_window.to, fingerprint.send_window.timezone ?? null]] : []),
    ...(fingerprint.send_at ? [['send_at', fingerprint.send_at]] : []),
  ]);
  return `v1:${createHash('sha256').update(canonical).digest('hex')}`;
}
