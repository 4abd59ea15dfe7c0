import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { PROJECT_ROOT } from '../src/paths';

/* The layout's rules, checked on the source itself: no import cycles, and deterministic workflow code. */

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ['generated', 'fixtures'].includes(entry.name) ? [] : sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]);
}

function resolveLocal(file: string, specifier: string): string | undefined {
  const target = resolve(dirname(file), specifier);
  return [`${target}.ts`, join(target, 'index.ts')].find((candidate) => existsSync(candidate));
}

function importCycles(root: string): string[][] {
  const graph = new Map(sourceFiles(root).map((file) => [file, importsOf(file).filter((s) => s.startsWith('.')).flatMap((s) => resolveLocal(file, s) ?? [])]));
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next].map((f) => relative(PROJECT_ROOT, f)));
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

test.each(['src', 'test', 'bench'])('%s has no import cycles', (dir) => {
  expect(importCycles(join(PROJECT_ROOT, dir))).toEqual([]);
});

test('workflow files import only @temporalio/workflow, the definitions and pure helpers of their folder', () => {
  const workflowsDir = join(PROJECT_ROOT, 'src', 'workflows');
  const offending = sourceFiles(workflowsDir).flatMap((file) =>
    importsOf(file)
      .filter((specifier) => {
        if (specifier === '@temporalio/workflow') return false;
        // `import type` of the activities is erased from the bundle.
        if (specifier === '../activities') return !/import type \{[^}]*\} from '\.\.\/activities'/.test(readFileSync(file, 'utf8'));
        const local = specifier.startsWith('.') ? resolveLocal(file, specifier) : undefined;
        return !local || !local.startsWith(workflowsDir);
      })
      .map((specifier) => `${relative(PROJECT_ROOT, file)} imports ${specifier}`),
  );
  expect(offending).toEqual([]);
});

test('the checks can fail: a cycle between two files is found', () => {
  expect(importCycles(join(PROJECT_ROOT, 'test', 'fixtures', 'cycle'))).toEqual([
    ['test/fixtures/cycle/a.ts', 'test/fixtures/cycle/b.ts', 'test/fixtures/cycle/a.ts'],
  ]);
});
