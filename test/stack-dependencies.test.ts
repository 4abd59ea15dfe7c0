import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/paths';

/*
 * `npm start` and `npm test` run scripts/ensure-deps.js first: `npm ci` when the installed tree is not
 * the locked one, and only then. Driven here on a checkout of its own with a fake `npm` on PATH that
 * records each call and installs the way `npm ci` does (npm's record of the tree, node_modules/.package-lock.json).
 */
const lock = (version: string) => ({
  name: 'app',
  version: '1.0.0',
  lockfileVersion: 3,
  requires: true,
  packages: {
    '': { name: 'app', version: '1.0.0', dependencies: { left: version } },
    'node_modules/left': { version, resolved: `https://registry.npmjs.org/left/-/left-${version}.tgz`, license: 'MIT' },
    'node_modules/@native/other-os': { version: '1.0.0', optional: true, os: ['darwin'] },
  },
});

function checkout() {
  const dir = mkdtempSync(join(tmpdir(), 'ensure-deps-'));
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(PROJECT_ROOT, 'scripts', 'ensure-deps.js'), join(dir, 'scripts', 'ensure-deps.js'));
  mkdirSync(join(dir, 'bin'));
  const calls = join(dir, 'npm-calls');
  writeFileSync(
    join(dir, 'bin', 'npm'),
    `#!/usr/bin/env node
const fs = require('node:fs');
fs.appendFileSync(${JSON.stringify(calls)}, process.argv.slice(2).join(' ') + '\\n');
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
fs.rmSync('node_modules', { recursive: true, force: true });
fs.mkdirSync('node_modules');
const { '': _root, ['node_modules/@native/other-os']: _skipped, ...packages } = lock.packages;
fs.writeFileSync('node_modules/.package-lock.json', JSON.stringify({ name: lock.name, version: lock.version, lockfileVersion: 3, requires: true, packages }));
`,
  );
  chmodSync(join(dir, 'bin', 'npm'), 0o755);
  const writeLock = (version: string) => writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lock(version), null, 2));
  const touchLock = () => {
    const future = new Date(Date.now() + 3_600_000);
    utimesSync(join(dir, 'package-lock.json'), future, future);
  };
  const run = () => {
    const before = existsSync(calls) ? readFileSync(calls, 'utf8') : '';
    execFileSync(process.execPath, [join(dir, 'scripts', 'ensure-deps.js')], { cwd: dir, env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}` }, stdio: 'pipe' });
    const after = existsSync(calls) ? readFileSync(calls, 'utf8') : '';
    return after.slice(before.length).split('\n').filter(Boolean);
  };
  return { dir, writeLock, touchLock, run };
}

test('a fresh checkout without node_modules gets npm ci, and the next start does not', () => {
  const repo = checkout();
  repo.writeLock('1.0.0');
  expect(repo.run()).toEqual(['ci --no-audit --no-fund']);
  expect(repo.run()).toEqual([]);
});

test('a lock file newer than the installed tree but with the same content does not reinstall', () => {
  const repo = checkout();
  repo.writeLock('1.0.0');
  repo.run();
  repo.touchLock();
  expect(repo.run()).toEqual([]);
});

test('a tree installed by npm ci by hand (no stamp of this script) is recognised by its content, whatever the dates', () => {
  const repo = checkout();
  repo.writeLock('1.0.0');
  execFileSync(join(repo.dir, 'bin', 'npm'), ['ci'], { cwd: repo.dir });
  repo.touchLock();
  expect(repo.run()).toEqual([]);
});

test('a changed lock file installs again, once', () => {
  const repo = checkout();
  repo.writeLock('1.0.0');
  repo.run();
  repo.writeLock('1.0.1');
  expect(repo.run()).toEqual(['ci --no-audit --no-fund']);
  expect(repo.run()).toEqual([]);
});

test('a tree that differs from an unchanged lock file (a package installed by hand) installs again', () => {
  const repo = checkout();
  repo.writeLock('1.0.0');
  execFileSync(join(repo.dir, 'bin', 'npm'), ['ci'], { cwd: repo.dir });
  const record = join(repo.dir, 'node_modules', '.package-lock.json');
  const tree = JSON.parse(readFileSync(record, 'utf8'));
  tree.packages['node_modules/left'].version = '0.9.0';
  writeFileSync(record, JSON.stringify(tree));
  expect(repo.run()).toEqual(['ci --no-audit --no-fund']);
});
