import type { CpuPerItem } from './cpu';

/** What every scenario prints: its baseline and the project's figure measured in the same run, and their ratio. */
export interface ScenarioResult {
  scenario: string;
  /** One line on what was measured, and on what stack. */
  what: string;
  baseline: { label: string; figures: Record<string, unknown> };
  project: { label: string; figures: Record<string, unknown> };
  /** project ÷ baseline for the figures the goals are about (higher means the project is slower, or faster for rates: see `goals`). */
  ratios: Record<string, number>;
  goals: { goal: string; measured: string; met: boolean }[];
  /** 503s (the API's backpressure) the benchmark's clients were answered; each was waited out for its Retry-After and sent again. */
  answered503: number;
  /** CPU seconds per item over every process of the stack (bench/cpu.ts), for the measured phases. */
  cpu?: Record<string, CpuPerItem>;
  /** Which Temporal ran: `dev` or `server`. */
  engine?: string;
  /** Anything else worth keeping: memory, storage, counts. */
  notes?: Record<string, unknown>;
  /** Several baselines and cases side by side (assign): one row each, printed as aligned columns. */
  table?: Record<string, string | number>[];
}

/** `rows` as aligned columns, the first row's keys as the header. */
export function tableLines(rows: Record<string, string | number>[], indent = ''): string[] {
  if (!rows.length) return [];
  const columns = Object.keys(rows[0]);
  const cells = [columns, ...rows.map((row) => columns.map((c) => String(row[c] ?? '')))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  return cells.map((line) => indent + line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ').trimEnd());
}

const compact = (figures: Record<string, unknown>) =>
  Object.entries(figures)
    .map(([key, value]) => `${key}=${typeof value === 'object' ? JSON.stringify(value) : value}`)
    .join('  ');

/** Human lines first (baseline, project, ratios, goals), then the whole result as one JSON line. */
export function printResult(result: ScenarioResult): ScenarioResult {
  const lines = [
    `== ${result.scenario}: ${result.what}`,
    `baseline  ${result.baseline.label}: ${compact(result.baseline.figures)}`,
    `project   ${result.project.label}: ${compact(result.project.figures)}`,
    ...tableLines(result.table ?? [], 'table     '),
    `ratio     ${Object.entries(result.ratios).map(([k, v]) => `${k} ${v}×`).join('  ')}`,
    ...result.goals.map((g) => `goal      ${g.goal}: ${g.measured} → ${g.met ? 'met' : 'NOT met'}`),
    `busy      ${result.answered503} answers 503 (Retry-After waited out, sent again)`,
    ...Object.entries(result.cpu ?? {}).map(([phase, c]) => `cpu       ${phase}: s/item over ${c.items} items: ${compact(c.secondsPerItem)}`),
    ...(result.notes ? [`notes     ${compact(result.notes)}`] : []),
  ];
  console.log(lines.join('\n'));
  console.log(JSON.stringify(result));
  return result;
}

export const ratio = (project: number, baseline: number) => +(project / baseline).toFixed(2);

/** Both engines' results of one scenario, side by side: baseline, project, ratios and CPU per item. */
export function printSideBySide(results: ScenarioResult[]): void {
  const lines = [`== ${results[0]?.scenario}: side by side`];
  for (const r of results) {
    const engine = (r.engine ?? '?').padEnd(6);
    lines.push(`${engine} baseline  ${compact(r.baseline.figures)}`);
    lines.push(`${engine} project   ${compact(r.project.figures)}`);
    lines.push(...tableLines(r.table ?? [], `${engine} table     `));
    lines.push(`${engine} ratio     ${Object.entries(r.ratios).map(([k, v]) => `${k} ${v}×`).join('  ')}`);
    for (const [phase, c] of Object.entries(r.cpu ?? {})) lines.push(`${engine} cpu       ${phase}: s/item over ${c.items} items: ${compact(c.secondsPerItem)}`);
  }
  console.log(lines.join('\n'));
}
