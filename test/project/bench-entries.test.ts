import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DIST_ENTRIES } from '../../bench/processes';
import { PROJECT_ROOT } from '../../src/paths';

/*
 * The benchmarks spawn the built processes (`node dist/…`) and the build script: a file moved by a
 * refactor must not leave a scenario spawning a path that no longer exists, as `campaign`, `scale`,
 * `scale-out` and `start-campaign` once did with `dist/api/main.js`. The global setup has run
 * `npm run build` (scripts/build-if-changed.js), so dist/ is the tree's own.
 */

function benchFiles(dir = join(PROJECT_ROOT, 'bench')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? benchFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

test('every process a benchmark starts from dist/ is a file the build writes', () => {
  const missing = Object.values(DIST_ENTRIES).filter((entry) => !existsSync(join(PROJECT_ROOT, 'dist', entry)));
  expect(missing).toEqual([]);
});

test('every script path a benchmark names (a quoted …/name.js) exists under dist/ or scripts/', () => {
  const named = benchFiles().flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/'([\w./-]+\.js)'/g)].map((match) => ({ file: relative(PROJECT_ROOT, file), script: match[1] })),
  );
  expect(named.map(({ script }) => script)).toEqual(expect.arrayContaining(['main/api.js', 'main/worker.js', 'build-if-changed.js']));
  const missing = named.filter(({ script }) => !['dist', 'scripts'].some((dir) => existsSync(join(PROJECT_ROOT, dir, script))));
  expect(missing).toEqual([]);
});
