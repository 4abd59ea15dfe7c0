import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';
import { PROJECT_ROOT } from '../../src/paths';

/* The layout's rules, checked on the source itself: no import cycles, deterministic workflow code, the layers and the doors. */

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

/** Every cycle a depth-first walk of `graph` (each node and the nodes it points to) meets, as the path that closes it. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

function importCycles(root: string): string[][] {
  const graph = new Map(sourceFiles(root).map((file) => [file, importsOf(file).filter((s) => s.startsWith('.')).flatMap((s) => resolveLocal(file, s) ?? [])]));
  return cyclesOf(graph).map((cycle) => cycle.map((f) => relative(PROJECT_ROOT, f)));
}

test.each(['src', 'test', 'bench'])('%s has no import cycles', (dir) => {
  expect(importCycles(join(PROJECT_ROOT, dir))).toEqual([]);
});

const SRC = join(PROJECT_ROOT, 'src');
const under = (dir: string) => (file: string | undefined) => file !== undefined && file.startsWith(join(SRC, dir) + '/');

/** `file`'s imports as `from -> to`, relative to the project, where `offends(specifier, target)` holds (target: the local file, if any). */
function offendingImports(files: string[], offends: (specifier: string, target: string | undefined, file: string) => boolean): string[] {
  return files.flatMap((file) =>
    importsOf(file)
      .filter((specifier) => offends(specifier, specifier.startsWith('.') ? resolveLocal(file, specifier) : undefined, file))
      .map((specifier) => `${relative(PROJECT_ROOT, file)} imports ${specifier}`),
  );
}

test('workflow files import only @temporalio/workflow, the shared vocabulary (src/domain) and pure helpers of their folder', () => {
  const offending = offendingImports(sourceFiles(join(SRC, 'workflows')), (specifier, target, file) => {
    if (specifier === '@temporalio/workflow') return false;
    // `import type` of the activities is erased from the bundle.
    if (/^(\.\.\/)+activities$/.test(specifier)) return !new RegExp(`import type \\{[^}]*\\} from '${specifier}'`).test(readFileSync(file, 'utf8'));
    return !under('workflows')(target) && !under('domain')(target);
  });
  expect(offending).toEqual([]);
});

/** The calls of `patched()` or `deprecatePatch()` in `text`, as `file:line`. */
const patchCalls = (file: string, text: string) => text.split('\n').flatMap((line, i) => (/\b(patched|deprecatePatch)\(/.test(line) ? [`${file}:${i + 1}`] : []));

test('no workflow code branches on patched(): a change of workflow code ships as a new version of the worker (docs/design.md, "Changing workflow code")', () => {
  expect(sourceFiles(join(SRC, 'workflows')).flatMap((file) => patchCalls(relative(PROJECT_ROOT, file), readFileSync(file, 'utf8')))).toEqual([]);
  // The check can fail.
  expect(patchCalls('w.ts', "const a = 1;\nif (patched('x')) run();\ndeprecatePatch('y');")).toEqual(['w.ts:2', 'w.ts:3']);
});

test('the shared vocabulary is safe in the workflow bundle: it imports only @temporalio/workflow and itself', () => {
  const offending = offendingImports(sourceFiles(join(SRC, 'domain')), (specifier, target) => specifier !== '@temporalio/workflow' && !under('domain')(target));
  expect(offending).toEqual([]);
});

test('nothing outside src/api imports a module of it but its entry point, src/api/index.ts', () => {
  const files = sourceFiles(SRC).filter((file) => !under('api')(file));
  const offending = offendingImports(files, (_specifier, target) => under('api')(target) && target !== join(SRC, 'api', 'index.ts'));
  expect(offending).toEqual([]);
});

test('the use cases know no door: they import nothing from src/api or src/nexus', () => {
  const offending = offendingImports(sourceFiles(join(SRC, 'use-cases')), (_specifier, target) => under('api')(target) || under('nexus')(target));
  expect(offending).toEqual([]);
});

/**
 * The layers of src/, highest first (docs/design.md draws them). A file may import its own folder, a
 * folder of its own layer named beside it here, or any lower layer; never a higher one.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['main'],
  ['worker', 'stack'],
  ['api', 'nexus', 'activities', 'workflows'],
  ['use-cases'],
  ['starters'],
  ['auth', 'carriers', 'crm', 'temporal-client'],
  ['db'],
  ['secrets', 'views', 'net'],
  ['config', 'telemetry', '.'],
  ['domain', 'generated'],
];

/** The top folder of src/ a file is in, or '.' for a file directly in src/. */
const folderOf = (file: string, root = SRC) => {
  const parts = relative(root, file).split('/');
  return parts.length > 1 ? parts[0] : '.';
};
const layerOf = (folder: string) => LAYERS.findIndex((layer) => layer.includes(folder));

test('every folder of src/ has a place in the layers', () => {
  const folders = [...new Set(sourceFiles(SRC).map((file) => folderOf(file)))];
  expect(folders.filter((folder) => layerOf(folder) < 0)).toEqual([]);
});

test('no import runs from a lower layer of src/ to a higher one', () => {
  const offending = offendingImports(sourceFiles(SRC), (_specifier, target, file) => target !== undefined && layerOf(folderOf(target)) < layerOf(folderOf(file)));
  expect(offending).toEqual([]);
});

test.each([
  ['HTTP', 'routes', 'api'],
  ['Nexus', 'operations', 'nexus'],
  ['worker', 'activities', 'activities'],
])('the %s door imports no database module: %s go through use cases', (_door, _entries, dir) => {
  const offending = offendingImports(sourceFiles(join(SRC, dir)), (_specifier, target) => under('db')(target));
  expect(offending).toEqual([]);
});

test('the doors stand apart: the HTTP door, the Nexus door and the activities import nothing of each other', () => {
  const doors = ['api', 'nexus', 'activities'];
  const offending = offendingImports(sourceFiles(SRC), (_specifier, target, file) => target !== undefined && doors.includes(folderOf(file)) && doors.includes(folderOf(target)) && folderOf(file) !== folderOf(target));
  expect(offending).toEqual([]);
});

/** A data module holds rows and queries; its rules (choosing an agent, a period's arithmetic, a state machine) live in src/domain and src/use-cases. */
const MAX_DB_MODULE_LINES = 300;

test(`every module of src/db holds rows and queries only: each under ${MAX_DB_MODULE_LINES} lines`, () => {
  const long = sourceFiles(join(SRC, 'db'))
    .map((file) => ({ file: relative(PROJECT_ROOT, file), lines: readFileSync(file, 'utf8').trimEnd().split('\n').length }))
    .filter(({ lines }) => lines >= MAX_DB_MODULE_LINES);
  expect(long).toEqual([]);
});

/** The clocks an assignment's change sets going and the CRM lead it wakes: what follows a change, said in src/use-cases/assignments/after-change.ts. */
const FOLLOWS_A_CHANGE = /\b(?:startOrWakeExpiry|wakeExpiry|startFirstResponseClock|wakeCrmLeadOfClient|wakeQueuedCrmLead)\(/;

test('what follows an assignment\'s start or end is said in one module, which every path calls', () => {
  // Beside it: the starters themselves, the reconciler (restoring clocks a failure left missing) and the assignment activities with their use case.
  const allowed = ['use-cases/assignments/after-change.ts', 'activities/housekeeping/reconcile.ts', 'activities/assignments/index.ts', 'use-cases/assignments/clocks.ts'].map((f) => join(SRC, f));
  const offending = sourceFiles(SRC).filter((file) => !under('starters')(file) && !allowed.includes(file) && FOLLOWS_A_CHANGE.test(readFileSync(file, 'utf8')));
  expect(offending.map((f) => relative(PROJECT_ROOT, f))).toEqual([]);
});

test('the database layer imports nothing from Temporal', () => {
  const offending = offendingImports(sourceFiles(join(SRC, 'db')), (specifier) => specifier.startsWith('@temporalio/'));
  expect(offending).toEqual([]);
});

/** What only a process does: read its command line, exit, or take the signals. */
const PROCESS_ONLY = /\bprocess\.(?:argv|exit)\b|process\.(?:on|once)\('SIG/;

test('every process starts from src/main: no file elsewhere reads the command line, exits or takes a signal', () => {
  const offending = sourceFiles(SRC).filter((file) => !under('main')(file) && PROCESS_ONLY.test(readFileSync(file, 'utf8')));
  expect(offending.map((f) => relative(PROJECT_ROOT, f))).toEqual([]);
});

test('the checks can fail: an import from a lower layer to a higher one is found', () => {
  const fixture = join(PROJECT_ROOT, 'test', 'fixtures', 'layers');
  const upward = (_specifier: string, target: string | undefined, file: string) => target !== undefined && layerOf(folderOf(target, fixture)) < layerOf(folderOf(file, fixture));
  expect(offendingImports(sourceFiles(fixture), upward)).toEqual(['test/fixtures/layers/db/upward.ts imports ../use-cases/errors']);
});

test('the views are a leaf: they import only the shared vocabulary (src/domain), the generated row types and each other', () => {
  const offending = offendingImports(sourceFiles(join(SRC, 'views')), (_specifier, target) => !['views', 'domain', 'generated'].some((dir) => under(dir)(target)));
  expect(offending).toEqual([]);
});

test('every JSON view lives in src/views: no view.ts under src/api', () => {
  expect(sourceFiles(join(SRC, 'api')).filter((file) => file.endsWith('/view.ts')).map((f) => relative(PROJECT_ROOT, f))).toEqual([]);
});

/** Where a workflow is started, signaled or updated: a client call, a Nexus start, a delayed workflow's starter, or a Schedule's action. */
const STARTS = /\.workflow\.(?:start|signalWithStart|execute)\b|\bstartWorkflow\b|\bdelayedWorkflow<|\.executeUpdate\b|\.signal\(|workflowType: [A-Z_]+_WORKFLOW/;

test('each workflow type is started, signaled and updated from exactly one module, in src/starters', () => {
  const names = [...readFileSync(join(SRC, 'domain', 'index.ts'), 'utf8').matchAll(/from '\.\/([^']+)'/g)].flatMap((m) =>
    [...readFileSync(join(SRC, 'domain', `${m[1]}.ts`), 'utf8').matchAll(/export const ([A-Z_]+_WORKFLOW) = '(\w+)'/g)].map((w) => ({ constant: w[1], type: w[2] })),
  );
  expect(names.length).toBeGreaterThanOrEqual(7);
  const starting = sourceFiles(SRC).filter((file) => !under('workflows')(file) && STARTS.test(readFileSync(file, 'utf8')));
  const startersOf = Object.fromEntries(
    names.map(({ constant, type }) => [type, starting.filter((file) => new RegExp(`\\b${constant}\\b`).test(readFileSync(file, 'utf8'))).map((f) => relative(PROJECT_ROOT, f))]),
  );
  // Run only by an operator's hand now (the housekeeping run calls their activities itself): no module starts them.
  const BY_HAND_ONLY = ['reconcile', 'sweepWebhookDeliveries'];
  for (const [type, files] of Object.entries(startersOf)) {
    expect({ type, files }).toEqual({ type, files: BY_HAND_ONLY.includes(type) ? [] : [expect.stringMatching(/^src\/starters\//)] });
  }
  expect(starting.map((f) => relative(PROJECT_ROOT, f)).filter((f) => !/^src\/starters\/[a-z-]+-(workflow|schedule)\.ts$/.test(f))).toEqual([]);
});

test('the checks can fail: a cycle between two files is found', () => {
  expect(importCycles(join(PROJECT_ROOT, 'test', 'fixtures', 'cycle'))).toEqual([
    ['test/fixtures/cycle/a.ts', 'test/fixtures/cycle/b.ts', 'test/fixtures/cycle/a.ts'],
  ]);
});

/*
 * The production image carries no development-only code: src/stack (the simulator, the CRM fakes, the
 * embedded PostgreSQL and Temporal servers and their installers) is npm start's, and no process of a
 * deployment loads it. The production build (tsconfig.production.json, the Dockerfile's) compiles its
 * entry points and what they load, nothing else.
 */
const DEV_ONLY = ['src/stack/'];
const PRODUCTION_TSCONFIG = join(PROJECT_ROOT, 'tsconfig.production.json');
const productionEntryPoints = (): string[] => (JSON.parse(readFileSync(PRODUCTION_TSCONFIG, 'utf8')) as { files: string[] }).files.map((f) => join(PROJECT_ROOT, f));

/** Every specifier `file` loads: imports and exports (type-only ones too), `import()`, `require()` and `require.resolve()`. */
function specifiersLoadedBy(file: string): string[] {
  const quoted = `['"]([^'"]+)['"]`;
  const pattern = new RegExp(`^(?:import|export)[^;]*?from\\s+${quoted}|^import\\s+${quoted}|\\b(?:require(?:\\.resolve)?|import)\\(${quoted}\\)`, 'gms');
  return [...readFileSync(file, 'utf8').matchAll(pattern)].map((m) => m[1] ?? m[2] ?? m[3]);
}

const loadedBy = (file: string) => specifiersLoadedBy(file).filter((s) => s.startsWith('.')).flatMap((s) => resolveLocal(file, s) ?? []);

/** The local files `entries` load, directly or not, each with the file that first loaded it. */
function loadGraph(entries: string[]): Map<string, string | undefined> {
  const loadedFrom = new Map<string, string | undefined>(entries.map((entry) => [entry, undefined]));
  const queue = [...entries];
  for (let file = queue.shift(); file; file = queue.shift()) {
    for (const next of loadedBy(file).filter((loaded) => !loadedFrom.has(loaded))) {
      loadedFrom.set(next, file);
      queue.push(next);
    }
  }
  return loadedFrom;
}

/** Each file under `devOnly` (absolute folders) reached from `entries`, as the path that reaches it (`a -> b -> src/stack/…`). */
function pathsToDevOnly(entries: string[], devOnly = DEV_ONLY.map((dir) => join(PROJECT_ROOT, dir))): string[] {
  const loadedFrom = loadGraph(entries);
  return [...loadedFrom.keys()].filter((file) => devOnly.some((dir) => file.startsWith(dir))).map((file) => {
    const path = [];
    for (let at: string | undefined = file; at; at = loadedFrom.get(at)) path.unshift(relative(PROJECT_ROOT, at));
    return path.join(' -> ');
  });
}

test('the production processes load no development-only code: nothing they load, directly or not, is in src/stack', () => {
  expect(productionEntryPoints().length).toBeGreaterThanOrEqual(5);
  expect(pathsToDevOnly(productionEntryPoints())).toEqual([]);
});

test('the image runs only production entry points: each Dockerfile CMD is one the production build compiles, built with its config', () => {
  const dockerfile = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
  const commands = [...dockerfile.matchAll(/^CMD \["node", "dist\/([^"]+)\.js"/gm)].map((m) => join(SRC, `${m[1]}.ts`));
  expect(commands.length).toBe(3);
  expect(commands.filter((file) => !productionEntryPoints().includes(file)).map((f) => relative(PROJECT_ROOT, f))).toEqual([]);
  expect(dockerfile).toMatch(/^RUN npm run build:production /m);
});

test('the production build compiles no development-only file, and every file the production processes load', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const listed = execFileSync(process.execPath, [tsc, '--listFilesOnly', '-p', PRODUCTION_TSCONFIG], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  const compiled = listed.split('\n').filter((file) => file.startsWith(SRC + '/')).map((f) => relative(PROJECT_ROOT, f));
  expect(compiled.filter((file) => DEV_ONLY.some((dir) => file.startsWith(dir)))).toEqual([]);
  const loaded = [...loadGraph(productionEntryPoints()).keys()].map((f) => relative(PROJECT_ROOT, f));
  expect(loaded.filter((file) => !compiled.includes(file))).toEqual([]);
});

/** Production dependencies no production process loads, for a reason: the Prisma CLI generates the client at build time. */
const BUILD_TOOLS = ['prisma'];

test('every production dependency is a package the production processes load: what only npm start or the tests use is a devDependency', () => {
  const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
  const files = [...loadGraph(productionEntryPoints()).keys()];
  const loaded = new Set(files.flatMap((file) => specifiersLoadedBy(file).filter((s) => !s.startsWith('.') && !s.startsWith('node:')).map(packageOf)));
  const { dependencies } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  expect(Object.keys(dependencies).filter((name) => !loaded.has(name) && !BUILD_TOOLS.includes(name))).toEqual([]);
});

test('the checks can fail: a load of development-only code, even by require() at run time, is named with its path', () => {
  const fixture = join(PROJECT_ROOT, 'test', 'fixtures', 'dev-only');
  expect(pathsToDevOnly([join(fixture, 'main', 'api.ts')], [join(fixture, 'stack') + '/'])).toEqual([
    'test/fixtures/dev-only/main/api.ts -> test/fixtures/dev-only/services/open.ts -> test/fixtures/dev-only/stack/simulator.ts',
  ]);
});

/** The folders of src/use-cases (one per feature) and the other folders of it each one imports. */
function useCaseFolderGraph(): Map<string, string[]> {
  const root = join(SRC, 'use-cases');
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(root)) {
    const from = folderOf(file, root);
    if (from === '.') continue;
    const targets = graph.get(from) ?? graph.set(from, new Set()).get(from)!;
    for (const specifier of importsOf(file).filter((s) => s.startsWith('.'))) {
      const target = resolveLocal(file, specifier);
      if (target === undefined || !target.startsWith(root + '/')) continue;
      const to = folderOf(target, root);
      if (to !== '.' && to !== from) targets.add(to);
    }
  }
  return new Map([...graph].map(([folder, targets]) => [folder, [...targets].sort()]));
}

test('the use-cases folders depend one way only: their imports of each other form no cycle', () => {
  expect(cyclesOf(useCaseFolderGraph())).toEqual([]);
});

test('the checks can fail: a cycle between two folders is found, and printed', () => {
  const graph = new Map([
    ['messages', ['routing']],
    ['routing', ['assignments']],
    ['assignments', ['messages']],
  ]);
  expect(cyclesOf(graph)).toEqual([['messages', 'routing', 'assignments', 'messages']]);
});

/** A workflow's function reads in one screen: the rules it applies live in src/domain, tested as tables. */
const MAX_WORKFLOW_FUNCTION_LINES = 80;

/** The name a function goes by: its own, its variable's or property's, else where it starts. */
function functionName(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  const named = node.name ?? ((ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent) || ts.isPropertyDeclaration(node.parent)) ? node.parent.name : undefined);
  const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  return named ? named.getText(source) : `the function at line ${line}`;
}

/** Each function-like node of `text` (declarations, methods, arrows, accessors) longer than `max` lines, as `file: name is N lines`. */
function longFunctions(file: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line;
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
      if (lines > max) found.push(`${file}: ${functionName(node, source)} is ${lines} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test(`no function in src/workflows is over ${MAX_WORKFLOW_FUNCTION_LINES} lines`, () => {
  const long = sourceFiles(join(SRC, 'workflows')).flatMap((file) => longFunctions(relative(PROJECT_ROOT, file), readFileSync(file, 'utf8'), MAX_WORKFLOW_FUNCTION_LINES));
  expect(long).toEqual([]);
});

test('the checks can fail: a long function is found by name, a method and an arrow too, and one of the limit is not', () => {
  const body = (lines: number) => Array.from({ length: lines - 2 }, (_, i) => `  step(${i});`).join('\n');
  const text = [
    `export async function holdClocks() {\n${body(81)}\n}`,
    `function short() {\n${body(80)}\n}`,
    `class Run {\n  hold() {\n${body(82)}\n  }\n}`,
    `const plan = () => {\n${body(90)}\n};`,
  ].join('\n');
  expect(longFunctions('long.ts', text, MAX_WORKFLOW_FUNCTION_LINES)).toEqual(['long.ts: holdClocks is 81 lines', 'long.ts: hold is 82 lines', 'long.ts: plan is 90 lines']);
});

test('the worker\'s door is split by feature, with the feature names of src/use-cases: one feature, one name in every layer', () => {
  const features = new Set(readdirSync(join(SRC, 'use-cases'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name));
  // What every feature's workflows or activities share stays at the top of its layer.
  const shared = ['workflows/index.ts', 'workflows/interceptors.ts', 'workflows/retry-budget.ts', 'workflows/durable-wait.ts', 'workflows/timers.ts', 'workflows/versioning.ts', 'workflows/scheduled-activity.ts', 'activities/index.ts', 'activities/refused-data.ts', 'activities/heartbeat.ts'];
  const misplaced = ['workflows', 'activities'].flatMap((layer) => sourceFiles(join(SRC, layer)))
    .map((file) => relative(SRC, file))
    .filter((file) => !shared.includes(file) && !file.startsWith('activities/providers/'))
    .filter((file) => !features.has(file.split('/')[1]) || file.split('/').length < 3);
  expect(misplaced).toEqual([]);
});
