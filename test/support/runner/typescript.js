'use strict';
// Compiles the project's TypeScript for Node's own require, as jest's transform did (swc, the same options),
// keeping each result on disk under its content's hash so a fresh jest worker compiles nothing already seen.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const sourceMapSupport = require('source-map-support');
const swc = require('@swc/core');

const options = { jsc: { target: 'es2022' }, module: { type: 'commonjs', ignoreDynamic: true }, sourceMaps: 'inline' };
const cacheDir = join(__dirname, '..', '..', '..', 'node_modules', '.cache', 'crm-test-typescript');
const salt = `${swc.version ?? require('@swc/core/package.json').version} ${JSON.stringify(options)}`;

/** Each compiled module's file in the cache, whose inline source map maps its stack traces back. */
const compiled = new Map();
const inlineMap = '//# sourceMappingURL=data:application/json;base64,';

function sourceMapOf(filename) {
  const cached = compiled.get(filename);
  if (!cached) return null;
  const code = readFileSync(cached, 'utf8');
  const at = code.lastIndexOf(inlineMap);
  return at < 0 ? null : { url: filename, map: Buffer.from(code.slice(at + inlineMap.length).trim(), 'base64').toString('utf8') };
}

function compile(source, filename) {
  const key = createHash('sha1').update(salt).update('\0').update(filename).update('\0').update(source).digest('hex');
  const cached = join(cacheDir, `${key}.js`);
  compiled.set(filename, cached);
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
  sourceMapSupport.install({ environment: 'node', handleUncaughtExceptions: false, retrieveSourceMap: sourceMapOf });
  ownFormatter = Error.prepareStackTrace;
}

let ownFormatter;
let claimed = false;

/**
 * Makes the stack-trace formatter this module's, once per process, before the first test file loads: jest's
 * worker installs its own for each file's vm, which knows none of these modules' maps, and the Temporal SDK in
 * debug mode hands every error that is not a workflow's to the formatter it found when it loaded.
 */
function claimStackTraces() {
  if (claimed) return;
  claimed = true;
  Error.prepareStackTrace = ownFormatter;
}

module.exports = { register, claimStackTraces };
