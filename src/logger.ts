/** One JSON line per event on stdout, so a log collector can read it. */
export function logEvent(event: string, fields: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ time: new Date().toISOString(), event, ...fields }));
}

export function logError(error: unknown, fields: Record<string, unknown> = {}): void {
  const e = error as Error;
  console.error(JSON.stringify({ time: new Date().toISOString(), event: 'error', message: e?.message ?? String(error), stack: e?.stack, ...fields }));
}
