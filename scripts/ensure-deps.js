#!/usr/bin/env node
// `npm start` and `npm test` on a fresh checkout: install the locked dependencies (npm ci) when the
// installed tree is not the one package-lock.json describes. Decided by content, never by file dates
// (a checkout or a copy gives the lock file any date).
const { createHash } = require('node:crypto');
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { execSync } = require('node:child_process');
const { join } = require('node:path');

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
  execSync('npm ci --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
  // Only `prisma dev` (a local Prisma Postgres, not used here) loads @prisma/streams-local, and every
  // published version of it declares node >=22: npm's EBADENGINE warning about it does not apply.
  if (readFileSync(locked, 'utf8').includes('"node_modules/@prisma/streams-local"')) {
    console.log('(npm\'s EBADENGINE warning for @prisma/streams-local is harmless: only `prisma dev` loads it, and this project does not use it.)');
  }
}
if (!stamped) writeFileSync(stamp, `${hash}\n`);
