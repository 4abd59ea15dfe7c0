#!/usr/bin/env node
// `npm start`: build only when a source, the schema, the lock file or a tsconfig changed since the last build.
const { existsSync, readdirSync, statSync, writeFileSync } = require('node:fs');
const { execSync } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const stamp = join(root, 'dist', '.build-stamp');

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), stat.mtimeMs);
}

const inputs = ['src', 'prisma', 'package-lock.json', 'package.json', 'tsconfig.json', 'tsconfig.build.json'].map((p) => join(root, p));
const changed = !existsSync(stamp) || inputs.some((input) => existsSync(input) && newest(input) > statSync(stamp).mtimeMs);
if (changed) {
  execSync('npm run build --silent', { cwd: root, stdio: 'inherit' });
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}
