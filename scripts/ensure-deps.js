#!/usr/bin/env node
// `npm start` and `npm test` on a fresh checkout: install the locked dependencies (npm ci) when the
// installed tree is not the one package-lock.json describes. Decided by content, never by file dates
// (a checkout or a copy gives the lock file any date).
const { createHash } = require('node:crypto');
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { execFileSync } = require('node:child_process');
const { delimiter, dirname, join } = require('node:path');
const { npmOnLockedNode } = require('./locked-node');

const root = join(__dirname, '..');
const locked = join(root, 'package-lock.json');
/** npm's record of what it installed. */
const installed = join(root, 'node_modules', '.package-lock.json');
/** The lock file's hash, written here after an install this script ran or checked. */
const stamp = join(root, 'node_modules', '.package-lock.sha256');

const lockHash = () => createHash('sha256').update(readFileSync(locked)).digest('hex');

/**
 * Whether npm's record of the tree agrees with the lock file, package by package: every installed
 * package is the locked one, and a locked package is missing only when it is optional (another
 * platform's binaries). This covers a tree installed by `npm ci` by hand, which writes no stamp.
 */
function treeMatchesLock() {
  try {
    const lock = JSON.parse(readFileSync(locked, 'utf8')).packages ?? {};
    const tree = JSON.parse(readFileSync(installed, 'utf8')).packages ?? {};
    const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
    return (
      Object.entries(tree).every(([path, entry]) => lock[path] && same(entry, lock[path])) &&
      Object.entries(lock).every(([path, entry]) => path === '' || tree[path] || entry.optional || entry.devOptional)
    );
  } catch {
    return false;
  }
}

const hash = lockHash();
const stamped = existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === hash;
if (!existsSync(installed) || (!stamped && !treeMatchesLock())) {
  console.log('Installing dependencies (npm ci)…');
  const npm = npmOnLockedNode(root);
  try {
    // The locked Node first on PATH too, for the install scripts npm runs.
    const path = npm.command === 'npm' ? process.env.PATH : `${dirname(npm.command)}${delimiter}${process.env.PATH}`;
    execFileSync(npm.command, [...npm.args, 'ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit', env: { ...process.env, PATH: path } });
  } finally {
    npm.done();
  }
}
if (!stamped) writeFileSync(stamp, `${hash}\n`);
