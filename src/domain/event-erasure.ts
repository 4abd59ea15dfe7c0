/* What a client's erasure leaves of an event's data (src/db/events.ts eraseClientEvents rewrites the rows). */

/** The fields of an event's data that hold what a client's erasure removes: its phone, its name and free text about it. */
const ERASED_FIELDS = new Set(['client_phone', 'client_name', 'text_message', 'ds_notes', 'text']);

/**
 * `data` with the erased fields cleared (`text_message` empty, as an erased message shows it; the others
 * null) and any other string that holds one of `phones` (a message's `from` or `to`) null.
 */
export function erasedEventData(data: unknown, phones: string[]): unknown {
  if (typeof data === 'string') return phones.some((p) => data.includes(p)) ? null : data;
  if (Array.isArray(data)) return data.map((item) => erasedEventData(item, phones));
  if (data === null || typeof data !== 'object') return data;
  const clear = (key: string, value: unknown) => (value === null ? null : key === 'text_message' || key === 'text' ? '' : null);
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, ERASED_FIELDS.has(key) ? clear(key, value) : erasedEventData(value, phones)]));
}
