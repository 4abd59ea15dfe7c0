#!/usr/bin/env node
// `npm run coverage`: the suite with jest's own coverage of src/ (v8), per file in coverage/jest.
// `npm run coverage -- --workflows`: the suite with V8's coverage of every Node process (NODE_V8_COVERAGE),
// then the workflow bundle's share mapped to src/workflows/ (scripts/workflow-coverage.js), which jest's
// coverage cannot see: workflows run from dist/workflow-bundle.js inside the SDK's sandbox.
// Either is a whole run of the suite (about 14 and 10 minutes here). docs/design.md, "Coverage".
const { spawnSync } = require('node:child_process');
const { mkdirSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const workflows = process.argv.includes('--workflows');
const rest = process.argv.slice(2).filter((arg) => arg !== '--workflows');
// Test paths first: an option that takes a list would take the paths after it as its own.
const npmTest = (args, env) => spawnSync('npm', ['test', '--', ...rest, ...args], { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } }).status;

if (!workflows) {
  // jest's roots hold src/ for --changedSince; test/ alone keeps the figures comparable with runs before that.
  const jestArgs = ['--coverage', '--coverageProvider=v8', "--collectCoverageFrom=src/**/*.ts", '--collectCoverageFrom=!src/generated/**', '--roots=<rootDir>/test', '--coverageReporters=json-summary', '--coverageReporters=json', '--coverageReporters=text-summary', `--coverageDirectory=${join(root, 'coverage', 'jest')}`];
  process.exit(npmTest(jestArgs) ?? 1);
}

const dir = join(root, 'coverage', 'v8');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
// The option on the command line replaces jest.config.js's list: its files, then the one that writes the coverage.
const configured = require(join(root, 'jest.config.js')).setupFilesAfterEnv.map((file) => file.replace('<rootDir>', root));
const setup = [...configured, join(root, 'test', 'support', 'take-coverage.js')].map((file) => `--setupFilesAfterEnv=${file}`);
const status = npmTest(setup, { NODE_V8_COVERAGE: dir });
const mapped = spawnSync(process.execPath, [join(__dirname, 'workflow-coverage.js'), dir, root, join(root, 'coverage', 'workflows.json')], { stdio: 'inherit' }).status;
process.exit(status || mapped || 0);
