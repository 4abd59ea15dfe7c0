import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths';
import { testDirSync } from '../support/temp-dir';

/*
 * `npm start` and `npm test` run scripts/ensure-deps.js first: `npm ci` when the installed tree is not
 * the locked one, and only then. Driven here on a checkout of its own with a fake `npm` on PATH that
 * records each call and installs the way `npm ci` does (npm's record of the tree, node_modules/.package-lock.json).
 */
const lock = (version: string, more: Record<string, object> = {}) => ({
  name: 'app',
  version: '1.0.0',
  lockfileVersion: 3,
  requires: true,
  packages: {
    '': { name: 'app', version: '1.0.0', dependencies: { left: version } },
    'node_modules/left': { version, resolved: `https://registry.npmjs.org/left/-/left-${version}.tgz`, license: 'MIT' },
    'node_modules/@native/other-os': { version: '1.0.0', optional: true, os: ['darwin'] },
    ...more,
  },
});

function checkout() {
  const dir = testDirSync('ensure-deps-');
  mkdirSync(join(dir, 'scripts'));
  for (const script of ['ensure-deps.js', 'locked-node.js']) copyFileSync(join(PROJECT_ROOT, 'scripts', script), join(dir, 'scripts', script));
  mkdirSync(join(dir, 'bin'));
  const calls = join(dir, 'npm-calls');
  writeFileSync(
    join(dir, 'bin', 'npm'),
    `#!/usr/bin/env node
const fs = require('node:fs');
fs.appendFileSync(${JSON.stringify(calls)}, process.argv.slice(2).join(' ') + '\\n');
if (process.argv[2] === 'pack') {
  fs.copyFileSync(${JSON.stringify(join(dir, 'registry-node.tgz'))}, require('node:path').join(process.argv[process.argv.indexOf('--pack-destination') + 1], 'node.tgz'));
  process.exit(0);
}
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
fs.rmSync('node_modules', { recursive: true, force: true });
fs.mkdirSync('node_modules');
const { '': _root, ['node_modules/@native/other-os']: _skipped, ...packages } = lock.packages;
fs.writeFileSync('node_modules/.package-lock.json', JSON.stringify({ name: lock.name, version: lock.version, lockfileVersion: 3, requires: true, packages }));
`,
  );
  chmodSync(join(dir, 'bin', 'npm'), 0o755);
  const writeLock = (version: string, more?: Record<string, object>) => writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lock(version, more), null, 2));
  const touchLock = () => {
    const future = new Date(Date.now() + 3_600_000);
    utimesSync(join(dir, 'package-lock.json'), future, future);
  };
  const run = (env: Record<string, string> = {}) => {
    const before = existsSync(calls) ? readFileSync(calls, 'utf8') : '';
    execFileSync(process.execPath, [join(dir, 'scripts', 'ensure-deps.js')], { cwd: dir, env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}`, ...env }, stdio: 'pipe' });
    const after = existsSync(calls) ? readFileSync(calls, 'utf8') : '';
    return after.slice(before.length).split('\n').filter(Boolean);
  };
  return { dir, writeLock, touchLock, run };
}

/** A checkout whose lock file is at `version`. */
function checkoutLocked(version: string) {
  const repo = checkout();
  repo.writeLock(version);
  return repo;
}

test('a fresh checkout without node_modules gets npm ci, and the next start does not', () => {
  const repo = checkoutLocked('1.0.0');
  expect(repo.run()).toEqual(['ci --no-audit --no-fund']);
  expect(repo.run()).toEqual([]);
});

test('a lock file newer than the installed tree but with the same content does not reinstall', () => {
  const repo = checkoutLocked('1.0.0');
  repo.run();
  repo.touchLock();
  expect(repo.run()).toEqual([]);
});

test('a tree installed by npm ci by hand (no stamp of this script) is recognised by its content, whatever the dates', () => {
  const repo = checkoutLocked('1.0.0');
  execFileSync(join(repo.dir, 'bin', 'npm'), ['ci'], { cwd: repo.dir });
  repo.touchLock();
  expect(repo.run()).toEqual([]);
});

test('a changed lock file installs again, once', () => {
  const repo = checkoutLocked('1.0.0');
  repo.run();
  repo.writeLock('1.0.1');
  expect(repo.run()).toEqual(['ci --no-audit --no-fund']);
  expect(repo.run()).toEqual([]);
});

test('a tree that differs from an unchanged lock file (a package installed by hand) installs again', () => {
  const repo = checkoutLocked('1.0.0');
  execFileSync(join(repo.dir, 'bin', 'npm'), ['ci'], { cwd: repo.dir });
  const record = join(repo.dir, 'node_modules', '.package-lock.json');
  const tree = JSON.parse(readFileSync(record, 'utf8'));
  tree.packages['node_modules/left'].version = '0.9.0';
  writeFileSync(record, JSON.stringify(tree));
  expect(repo.run()).toEqual(['ci --no-audit --no-fund']);
});

/**
 * The registry's Node package for this platform, as `npm pack` fetches it: a bin/node that records how
 * it was called and hands over to this Node. Returns its lock file entry.
 */
function registryNode(dir: string, version: string) {
  const name = `node-${process.platform}-${process.arch}`;
  mkdirSync(join(dir, 'node-package', 'package', 'bin'), { recursive: true });
  writeFileSync(join(dir, 'node-package', 'package', 'bin', 'node'), `#!/bin/sh\necho "$*" >> ${JSON.stringify(join(dir, 'node-calls'))}\nexec ${JSON.stringify(process.execPath)} "$@"\n`, { mode: 0o755 });
  execFileSync('tar', ['-czf', join(dir, 'registry-node.tgz'), '-C', join(dir, 'node-package'), 'package']);
  const integrity = `sha512-${createHash('sha512').update(readFileSync(join(dir, 'registry-node.tgz'))).digest('base64')}`;
  return { [`node_modules/${name}`]: { version, integrity, optional: true, os: [process.platform], cpu: [process.arch], bin: { node: 'bin/node' } } };
}

test('on another Node than the locked one, npm ci runs on the locked Node, fetched and checked against the lock file', () => {
  const repo = checkout();
  repo.writeLock('1.0.0', registryNode(repo.dir, '99.0.0'));
  const npm = join(repo.dir, 'bin', 'npm');
  expect(repo.run({ npm_execpath: npm })).toEqual([expect.stringMatching(`^pack node-${process.platform}-${process.arch}@99.0.0 --pack-destination `), 'ci --no-audit --no-fund']);
  expect(readFileSync(join(repo.dir, 'node-calls'), 'utf8')).toBe(`${npm} ci --no-audit --no-fund\n`);
  expect(repo.run({ npm_execpath: npm })).toEqual([]);
});

test('a Node package that does not match the lock file is refused, and nothing is installed', () => {
  const repo = checkout();
  const locked = registryNode(repo.dir, '99.0.0');
  writeFileSync(join(repo.dir, 'registry-node.tgz'), 'something else');
  repo.writeLock('1.0.0', locked);
  expect(() => repo.run({ npm_execpath: join(repo.dir, 'bin', 'npm') })).toThrow(`node-${process.platform}-${process.arch}@99.0.0 from the registry does not match package-lock.json's integrity`);
  expect(existsSync(join(repo.dir, 'node_modules'))).toBe(false);
  expect(existsSync(join(repo.dir, 'node-calls'))).toBe(false);
});
