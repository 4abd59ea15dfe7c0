/*
 * Only for `npm run coverage -- --workflows` (scripts/coverage.js), as a second setupFilesAfterEnv: writes
 * V8's coverage of the jest worker (NODE_V8_COVERAGE) after each file, its counters reset, so that a worker
 * jest stops at the end of the run loses nothing.
 */
afterAll(() => {
  require('node:v8').takeCoverage();
});
