'use strict';
// Compiles the project's TypeScript for Node's own require, as jest's transform did (swc, the same options),
// keeping each result on disk under its content's hash so a fresh jest worker compiles nothing already seen.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const swc = require('@swc/core');

const options = { jsc: { target: 'es2022' }, module: { type: 'commonjs', ignoreDynamic: true }, sourceMaps: 'inline' };
const cacheDir = join(__dirname, '..', '..', '..', 'node_modules', '.cache', 'crm-test-typescript');
const salt = `${swc.version ?? require('@swc/core/package.json').version} ${JSON.stringify(options)}`;

function compile(source, filename) {
  const key = createHash('sha1').update(salt).update('\0').update(filename).update('\0').update(source).digest('hex');
  const cached = join(cacheDir, `${key}.js`);
  try {
    return readFileSync(cached, 'utf8');
  } catch {
    const { code } = swc.transformSync(source, { ...options, filename });
    mkdirSync(cacheDir, { recursive: true });
    const partial = `${cached}.${process.pid}`;
    writeFileSync(partial, code);
    renameSync(partial, cached);
    return code;
  }
}

function register() {
  if (Module._extensions['.ts']?.crmTypescript) return;
  const load = (module, filename) => module._compile(compile(readFileSync(filename, 'utf8'), filename), filename);
  load.crmTypescript = true;
  Module._extensions['.ts'] = load;
  process.setSourceMapsEnabled(true);
}

module.exports = { register };
