'use strict';
// Compiles the project's TypeScript for Node's own require, as jest's transform does (swc, the same options),
// keeping each result on disk under its content's hash so a fresh jest worker compiles nothing already seen.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const sourceMapSupport = require('source-map-support');
const swc = require('@swc/core');

const options = { ...require('./swc-options'), sourceMaps: 'inline' };
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

/**
 * Makes this module's formatter the one that maps the process's errors, before each test and hook. Jest's
 * worker installs its own for each file's vm, which knows none of these modules' maps. The Temporal SDK in
 * debug mode installs one for errors made in a workflow's context, and hands it any error whose constructor
 * is not `Error` itself, an assertion's among them: it keeps those from another realm (a workflow's), and
 * this module maps the rest.
 */
function claimStackTraces() {
  const current = Error.prepareStackTrace;
  if (current === ownFormatter || current?.ownAndWorkflows) return;
  const other = current;
  const combined = (error, frames) => (error instanceof Error || typeof other !== 'function' ? ownFormatter(error, frames) : other(error, frames));
  combined.ownAndWorkflows = true;
  Error.prepareStackTrace = combined;
}

module.exports = { register, claimStackTraces };
