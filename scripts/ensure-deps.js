#!/usr/bin/env node
// `npm start` and `npm test` on a fresh checkout: install the locked dependencies first when they are missing.
const { existsSync, statSync } = require('node:fs');
const { execSync } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const installed = join(root, 'node_modules', '.package-lock.json');
const locked = join(root, 'package-lock.json');
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(locked).mtimeMs) {
  console.log('Installing dependencies (npm ci)…');
  execSync('npm ci --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
}
