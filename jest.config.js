const swcOptions = require('./test/support/runner/swc-options');

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The global setup and teardown; the test files and what they import are compiled by the runner below.
  // A copy: @swc/jest writes into the options it is given.
  transform: { '^.+\\.ts$': ['@swc/jest', structuredClone(swcOptions)] },
  // Node's own require, once per jest worker rather than once per file (test/support/runner/index.js).
  testRunner: '<rootDir>/test/support/runner/index.js',
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/support/each-file.ts'],
  // The suites' workflows run in the jest worker's own thread (TEMPORAL_DEBUG, test/support/global-setup.ts),
  // whose heap keeps growing from file to file: a worker above this after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '500MB',
  testTimeout: 90_000,
  // Two on two cores: the suite is bound by CPU, and with a third worker the files that judge latency (tenant
  // fairness, a quiet tenant's p95 beside a flood) or time-skip through heavy histories starve of it
  // (docs/design.md, "Suite time, seventh pass").
  maxWorkers: 2,
  // The slowest files first, from jest's cache or, on a fresh clone, from their times on CI.
  testSequencer: '<rootDir>/test/support/sequencer.js',
  verbose: true,
  // The Temporal SDK's native runtime keeps Node alive after the last suite; every server is stopped by then.
  forceExit: true,
};
