/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs', ignoreDynamic: true } }] },
  // The Vonage SDK requires node-fetch 3 and uuid 13, ES modules that Node 20.19+ can require but jest's
  // CommonJS runtime cannot: Node's fetch stands in for the first, the project's CommonJS uuid for the second.
  moduleNameMapper: { '^node-fetch$': '<rootDir>/test/support/node-fetch.ts', '^uuid$': require.resolve('uuid') },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 90_000,
  maxWorkers: 2,
  verbose: true,
  // The Temporal SDK's native runtime keeps Node alive after the last suite; every server is stopped by then.
  forceExit: true,
};
