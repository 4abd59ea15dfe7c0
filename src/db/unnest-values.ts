/* Values as a text[] or timestamptz[] array for unnest(): PostgreSQL reads null as NULL, the rest as text. */

export const isoOrNull = (date: Date | null): string | null => date?.toISOString() ?? null;

export const jsonOrNull = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));
