const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/*
 * The longest files start first, so that the workers finish together rather than one running a long file
 * alone at the end. Jest orders by the times its cache kept from the last run; a fresh clone has no cache
 * (jest would start with the biggest files, not the slowest), so the files' seconds in a whole run stand in
 * for it (the files of 12 s or more in a whole run of a fresh clone of main on 2026-11-29, three workers,
 * jest 376 s).
 * Refresh from a whole run's per-file times when the order drifts (docs/design.md, "Suite: jest's own runner").
 */
const CI_SECONDS = {
  'test/routing/in-process.test.ts': 74,
  'test/rotation/in-process.test.ts': 63,
  'test/carriers/in-process.test.ts': 61,
  'test/operations/in-process.test.ts': 53,
  'test/assignments/in-process.test.ts': 48,
  'test/message-batches/in-process.test.ts': 45,
  'test/api/in-process.test.ts': 43,
  'test/stack/engine-server.test.ts': 43,
  'test/stack/journeys.test.ts': 39,
  'test/integrations/in-process.test.ts': 38,
  'test/events/in-process.test.ts': 38,
  'test/stack/power-loss.test.ts': 38,
  'test/messages/in-process.test.ts': 37,
  'test/stack/crash.test.ts': 31,
  'test/stack/start-server-engine.test.ts': 30,
  'test/stack/cli-finds-stack.test.ts': 30,
  'test/stack/start.test.ts': 27,
  'test/integrations/crm-worker-crash.test.ts': 27,
  'test/stack/terminal-logs.test.ts': 23,
  'test/conversations/in-process.test.ts': 22,
  'test/stack/twilio.test.ts': 19,
  'test/nexus/operations.test.ts': 15,
  'test/messages/redelivery.test.ts': 15,
  'test/operations/worker-versioning.test.ts': 14,
  'test/clients/in-process.test.ts': 13,
};

class SlowestFirst extends Sequencer {
  sort(tests) {
    const seconds = (test) => {
      const cached = this.time(test);
      if (cached != null) return cached / 1000;
      return CI_SECONDS[relative(test.context.config.rootDir, test.path).split('\\').join('/')] ?? 0;
    };
    const size = (test) => test.context.hasteFS.getSize(test.path) ?? 0;
    return [...tests].sort(
      (a, b) => Number(this.hasFailed(b)) - Number(this.hasFailed(a)) || seconds(b) - seconds(a) || size(b) - size(a),
    );
  }
}

module.exports = SlowestFirst;
