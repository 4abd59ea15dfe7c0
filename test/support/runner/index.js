'use strict';
// Jest's test runner with Node's own module loading. jest-circus's default runs each file in a vm context
// with a module registry of its own, loading and compiling every module again per file (1.5–1.8 s of CPU
// for this project's files). Here the file and what it imports are required by Node, so a jest worker
// loads each module once for all its files. jest-circus still runs the tests (hooks, timeouts, each,
// reporting), and jest still schedules the files and replaces a worker above `workerIdleMemoryLimit`.
// What a file changes in the process is undone after it: the environment variables, spies and timers.
// A support module's top level runs once per worker, so hooks every file needs go in a setup file.
const { dirname, join } = require('node:path');
const { createJestObject } = require('./jest-object');

const typescript = require('./typescript');

typescript.register();

const adapter = join(dirname(require.resolve('jest-circus/package.json')), 'build', 'jestAdapterInit.js');

function restoreEnvironment(saved) {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
}

module.exports = async function runTestFile(globalConfig, config, environment, runtime, testPath, sendMessageToJest) {
  // A fresh copy of jest-circus's adapter per file: its state and event handlers are its module's own.
  delete require.cache[adapter];
  const { initialize, runAndTransformResultsToJestFormat } = require(adapter);
  const savedEnvironment = { ...process.env };
  const { jest, undo } = createJestObject(config);
  const { snapshotState } = await initialize({
    config: { ...config, injectGlobals: true },
    environment: {
      global: globalThis,
      // A worker the file started may have put its stack-trace formatter in front: this one goes back ahead of it.
      handleTestEvent: (event) => void ((event.name === 'test_start' || event.name === 'hook_start') && typescript.claimStackTraces()),
    },
    globalConfig,
    localRequire: require,
    parentProcess: process,
    runtime,
    sendMessageToJest,
    setGlobalsForRuntime() {},
    testPath,
  });
  globalThis.jest = jest;
  typescript.claimStackTraces();
  // expect's state is the process's: nothing of the previous file's last test (its name marks a test as running).
  globalThis.expect.setState({ currentTestName: undefined, testFailing: false, assertionCalls: 0, suppressedErrors: [], isExpectingAssertions: false, expectedAssertionsNumber: null });
  try {
    // Setup files run again for each file, as jest's own runner does: their hooks are the file's.
    for (const setupFile of config.setupFilesAfterEnv) {
      delete require.cache[setupFile];
      require(setupFile);
    }
    require(testPath);
    const results = await runAndTransformResultsToJestFormat({ config, globalConfig, setupAfterEnvPerfStats: {}, testPath });
    snapshotState.save();
    return results;
  } finally {
    undo();
    delete require.cache[testPath];
    restoreEnvironment(savedEnvironment);
  }
};
