'use strict';
// The `jest` object a test file sees: mock functions, spies and fake timers, each file's own and undone after it.
// Module mocks (`jest.mock`) cannot be had where modules load once per process: a test injects what it stands in for.
const { ModernFakeTimers } = require('@jest/fake-timers');
const { ModuleMocker } = require('jest-mock');

function createJestObject(config) {
  const mocker = new ModuleMocker(globalThis);
  let timers;
  const fake = () => (timers ??= new ModernFakeTimers({ global: globalThis, config }));
  const jest = {
    fn: (implementation) => mocker.fn(implementation),
    spyOn: (...args) => mocker.spyOn(...args),
    isMockFunction: (fn) => mocker.isMockFunction(fn),
    mocked: (source) => source,
    clearAllMocks: () => (mocker.clearAllMocks(), jest),
    resetAllMocks: () => (mocker.resetAllMocks(), jest),
    restoreAllMocks: () => (mocker.restoreAllMocks(), jest),
    useFakeTimers: (fakeConfig) => (fake().useFakeTimers(fakeConfig), jest),
    useRealTimers: () => (timers?.useRealTimers(), jest),
    setSystemTime: (now) => (fake().setSystemTime(now), jest),
    advanceTimersByTime: (ms) => (fake().advanceTimersByTime(ms), jest),
    advanceTimersByTimeAsync: async (ms) => (await fake().advanceTimersByTimeAsync(ms), jest),
    runAllTimers: () => (fake().runAllTimers(), jest),
    runOnlyPendingTimers: () => (fake().runOnlyPendingTimers(), jest),
    mock() {
      throw new Error('jest.mock: modules load once per jest worker here (test/support/runner): pass the stand-in as a dependency');
    },
  };
  const undo = () => {
    timers?.useRealTimers();
    mocker.restoreAllMocks();
  };
  return { jest, undo };
}

module.exports = { createJestObject };
