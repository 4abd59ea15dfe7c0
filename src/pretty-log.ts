/*
 * pino's JSON lines made readable for a person at a terminal (what pino-pretty does, in the few lines
 * this project needs): `12:04:05.123 INFO  message.delivered  id=… to=[redacted]`, an error's stack
 * below its line. The JSON is what is written everywhere else; this only reformats it, so redaction and
 * the fields are the same.
 */

const LEVELS: Record<string, { label: string; color: number }> = {
  trace: { label: 'TRACE', color: 90 },
  debug: { label: 'DEBUG', color: 36 },
  info: { label: 'INFO ', color: 32 },
  warn: { label: 'WARN ', color: 33 },
  error: { label: 'ERROR', color: 31 },
  fatal: { label: 'FATAL', color: 35 },
};

/** Keys shown in the line's head, not among its fields. */
const HEAD = new Set(['level', 'time', 'msg', 'event']);

const paint = (colors: boolean, code: number, text: string) => (colors ? `\u001b[${code}m${text}\u001b[0m` : text);

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]*$/.test(v) && v !== '' ? v : JSON.stringify(v);
  return JSON.stringify(v);
}

/** One pino JSON line as one readable line (plus an error's stack); anything that is not JSON passes through. */
export function prettyLine(line: string, colors = false): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = LEVELS[String(entry.level)] ?? { label: String(entry.level ?? '').toUpperCase().padEnd(5), color: 0 };
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 23) : '';
  const req = entry.req as { id?: string; method?: string; path?: string } | undefined;
  const fields: string[] = [];
  let stack: string | undefined;
  for (const [key, v] of Object.entries(entry)) {
    if (HEAD.has(key) || v === undefined) continue;
    if (key === 'err' && v && typeof v === 'object') {
      const err = v as { type?: string; message?: string; stack?: string };
      stack = err.stack;
      fields.push(`err=${value(err.message ?? err.type ?? v)}`);
    } else if (key === 'req' && req) {
      // The request's id, unless the line names it already (reqId, from the request's context).
      if (entry.reqId !== req.id) fields.push(`req=${req.id}`);
    } else if (key === 'res' || (key === 'responseTime' && req)) {
      // The request line's message says the status; its time follows it.
    } else {
      fields.push(`${key}=${value(v)}`);
    }
  }
  const took = req && typeof entry.responseTime === 'number' ? ` ${entry.responseTime} ms` : '';
  const head = [entry.event === 'http.request' ? undefined : entry.event, entry.msg ? `${entry.msg}${took}` : undefined].filter(Boolean).join('  ');
  const text = [paint(colors, 90, time), paint(colors, level.color, level.label), paint(colors, 1, head), fields.length ? paint(colors, 90, fields.join(' ')) : '']
    .filter(Boolean)
    .join(' ');
  const indented = stack ? `\n${stack.split('\n').map((l) => `    ${l}`).join('\n')}` : '';
  return `${text}${indented}\n`;
}

/** A destination that writes each pino line, made readable, to `out`. */
export function prettyDestination(out: { write(text: string): unknown }, colors: boolean): { write(line: string): void } {
  return { write: (line) => void out.write(prettyLine(line, colors)) };
}
