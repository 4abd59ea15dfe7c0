#!/usr/bin/env node
// usage: node scripts/workflow-coverage.js <NODE_V8_COVERAGE dir> <checkout> <out.json>
//
// V8's coverage of the workflow bundle (<checkout>/dist/workflow-bundle.js), per module of src/workflows/, on
// the bundle's own JavaScript (each module is tsc's output of one file). Every process and thread that
// loaded the bundle reports it; a position's count is that of the innermost range reported around it, and
// an entry written after a reset (v8.takeCoverage) that leaves out the script's top level counts zero
// outside what it reports. v8-to-istanbul is not used: through the bundle's source map it counts as covered
// the lines of a module that a thread loaded but never ran.
//   lines      the module's lines of code (not blank, not only a comment), covered when some entry
//              counted the range at their first character;
//   functions  the functions reported inside the module, covered when some entry counted one.
const { readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const [dir, checkout, out] = process.argv.slice(2);
const bundlePath = join(checkout, 'dist', 'workflow-bundle.js');
const bundleUrl = `file://${bundlePath}`;
const code = readFileSync(bundlePath, 'utf8');

function modulesOf(text) {
  const markers = [...text.matchAll(/^\/\*\*\*\/ "([^"]+)"/gm)];
  const modules = [];
  markers.forEach((marker, i) => {
    const source = /^\.\/dist\/(workflows\/.+)\.js$/.exec(marker[1]);
    if (!source) return;
    const end = i + 1 < markers.length ? markers[i + 1].index : text.length;
    modules.push({ name: `src/${source[1]}.ts`, start: marker.index, end, lines: codeLines(text, marker.index, end), hit: new Set(), functions: new Map() });
  });
  return modules;
}

function codeLines(text, start, end) {
  const lines = [];
  for (let at = text.indexOf('\n', start) + 1; at > 0 && at < end; ) {
    const next = text.indexOf('\n', at);
    const line = text.slice(at, next < 0 ? text.length : next);
    const trimmed = line.trim();
    if (trimmed && !/^(\/\/|\/\*|\*)/.test(trimmed) && !/^\}\)?,?;?$/.test(trimmed)) lines.push(at + line.length - line.trimStart().length);
    at = next < 0 ? -1 : next + 1;
  }
  return lines;
}

/** The count at `pos`: ranges sorted by start, then longer first; the last one that starts at or before it and contains it is the innermost. */
function countAt(ranges, pos) {
  let lo = 0;
  let hi = ranges.length - 1;
  let last = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid].startOffset <= pos) (last = mid), (lo = mid + 1);
    else hi = mid - 1;
  }
  for (let i = last; i >= 0; i--) if (ranges[i].endOffset > pos) return ranges[i].count;
  return 0;
}

const modules = modulesOf(code);
const moduleAt = (offset) => modules.find((m) => offset > m.start && offset < m.end);
let entries = 0;
for (const file of readdirSync(dir)) {
  const raw = readFileSync(join(dir, file), 'utf8');
  if (!raw.includes(bundleUrl)) continue;
  for (const script of JSON.parse(raw).result) {
    if (script.url !== bundleUrl) continue;
    entries++;
    const ranges = script.functions.flatMap((fn) => fn.ranges);
    if (!ranges.some((r) => r.startOffset === 0 && r.endOffset >= code.length - 1)) ranges.push({ startOffset: 0, endOffset: code.length, count: 0 });
    ranges.sort((a, b) => a.startOffset - b.startOffset || b.endOffset - a.endOffset);
    for (const fn of script.functions) {
      const m = moduleAt(fn.ranges[0].startOffset);
      if (m) m.functions.set(fn.ranges[0].startOffset, m.functions.get(fn.ranges[0].startOffset) || fn.ranges[0].count > 0);
    }
    for (const m of modules) m.lines.forEach((pos) => m.hit.has(pos) || (countAt(ranges, pos) > 0 && m.hit.add(pos)));
  }
}

const pct = (covered, total) => (total === 0 ? '-' : `${((100 * covered) / total).toFixed(1)} %`);
const result = { entries, modules: {}, total: { lines: [0, 0], functions: [0, 0] } };
for (const m of modules) {
  const row = { lines: [m.hit.size, m.lines.length], functions: [[...m.functions.values()].filter(Boolean).length, m.functions.size] };
  result.modules[m.name] = row;
  for (const key of ['lines', 'functions']) for (const i of [0, 1]) result.total[key][i] += row[key][i];
}
writeFileSync(out, JSON.stringify(result, null, 1));
console.log(`workflow bundle: ${entries} reports of it`);
for (const [name, row] of [...Object.entries(result.modules), ['total', result.total]])
  console.log(`${name.padEnd(52)} lines ${pct(...row.lines).padStart(8)} (${row.lines.join('/')})   functions ${pct(...row.functions).padStart(8)} (${row.functions.join('/')})`);
