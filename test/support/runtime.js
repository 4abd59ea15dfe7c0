const JestRuntime = require('jest-runtime').default;

/*
 * jest's runtime (the `runtime` option of jest.config.js), counting the test code in progress. jest-circus
 * marks the end of any test (or hook) as "outside of the test code", and the runtime then refuses to load
 * a module, with a ReferenceError. Concurrent tests (`test.concurrent`) run side by side, so the first to
 * end made a module loaded lazily by another, still running, fail: the Twilio SDK's registration lookup
 * and the Salesforce connector failed so in whole runs, depending on which test ended first. Here the code
 * is outside the tests only once every test and hook that started has ended.
 */
class Runtime extends JestRuntime {
  #running = 0;

  enterTestCode() {
    this.#running += 1;
    super.enterTestCode();
  }

  leaveTestCode() {
    this.#running = Math.max(this.#running - 1, 0);
    if (this.#running === 0) super.leaveTestCode();
  }
}

module.exports = Runtime;
