#!/usr/bin/env node
// The Prisma client, generated again only when the schema, the Prisma config or the lock file (Prisma's
// version) is newer than it. Regenerating rewrites src/generated/prisma in place: `npm start`'s build must
// not do that under a running test suite or API that is reading it.
const { existsSync, readdirSync, statSync } = require('node:fs');
const { execSync } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const client = join(root, 'src', 'generated', 'prisma', 'client.ts');

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), stat.mtimeMs);
}

const inputs = ['prisma', 'prisma.config.ts', 'package-lock.json'].map((p) => join(root, p)).filter(existsSync);
if (!existsSync(client) || inputs.some((input) => newest(input) >= statSync(client).mtimeMs)) {
  execSync('npm run prisma:generate --silent', { cwd: root, stdio: 'inherit' });
}
