// The Node the project runs on is a dependency: package-lock.json pins node-<os>-<cpu> (the npm registry's
// Node binaries), and `npm run` finds it first on PATH as node_modules/.bin/node. Before that is installed,
// `npm ci` itself would run on whatever Node started it and warn EBADENGINE for every package that needs a
// newer one: so the install runs npm on the locked Node, fetched with `npm pack` and checked against the
// lock file's integrity.
const { createHash } = require('node:crypto');
const { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } = require('node:fs');
const { execFileSync } = require('node:child_process');
const { tmpdir } = require('node:os');
const { delimiter, join } = require('node:path');

/** This platform's Node package in the lock file: its name, version and integrity; undefined if none is locked for it. */
function lockedNode(root) {
  const name = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
  const entry = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages?.[`node_modules/${name}`];
  return entry ? { name, version: entry.version, integrity: entry.integrity } : undefined;
}

/** npm's own script: the one running this (npm run sets npm_execpath), else the `npm` on PATH. */
function npmCli() {
  if (process.env.npm_execpath) return process.env.npm_execpath;
  const found = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'npm')).find((path) => existsSync(path));
  return found && realpathSync(found);
}

/**
 * How to run npm for the install: `npm` itself when this Node is the locked one (or none is locked for
 * this platform), else npm's script on the locked Node, unpacked in a temporary directory that
 * `done()` removes.
 */
function npmOnLockedNode(root) {
  const node = lockedNode(root);
  const cli = npmCli();
  if (!node || process.version === `v${node.version}` || !cli) return { command: 'npm', args: [], done: () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'locked-node-'));
  try {
    execFileSync('npm', ['pack', `${node.name}@${node.version}`, '--pack-destination', dir, '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    const tarball = join(dir, readdirSync(dir).find((file) => file.endsWith('.tgz')) ?? 'missing.tgz');
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (integrity !== node.integrity) throw new Error(`${node.name}@${node.version} from the registry does not match package-lock.json's integrity`);
    execFileSync('tar', ['-xzf', tarball, '-C', dir]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { command: join(dir, 'package', 'bin', 'node'), args: [cli], done: () => rmSync(dir, { recursive: true, force: true }) };
}

module.exports = { lockedNode, npmOnLockedNode };
