/** A receiver's or carrier's `Retry-After` is followed up to this long; the delivery's own backoff takes over beyond. */
export const MAX_RETRY_AFTER_MS = 10 * 60 * 1000;

/** `Retry-After` as seconds or an HTTP date, in ms from now, bounded; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | null | undefined, now = Date.now(), max = MAX_RETRY_AFTER_MS): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), max) : undefined;
}
