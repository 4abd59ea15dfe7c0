#!/usr/bin/env node
// `npm test`: the typecheck and jest side by side. The typecheck uses one core for about 20 s while jest's
// global setup mostly waits on PostgreSQL and Temporal starting; either failing fails the run. Arguments
// go to jest (`npm test -- test/api`).
const { spawn } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const run = (command, args) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });

// Incremental: a run after the first checks again only what changed (its state under node_modules/.cache).
const typecheckArgs = ['--noEmit', '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', join(root, 'node_modules', '.cache', 'crm-typecheck', 'tsconfig.tsbuildinfo')];
Promise.all([run(bin('tsc'), typecheckArgs), run(bin('jest'), process.argv.slice(2))]).then(([typecheck, jest]) => {
  if (typecheck !== 0) console.error('npm test: the typecheck failed');
  process.exit(typecheck || jest);
});
