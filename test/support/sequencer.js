const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/*
 * The longest files start first, so that the workers finish together rather than one running a long file
 * alone at the end. Jest orders by the times its cache kept from the last run; a fresh clone has no cache
 * (jest would start with the biggest files, not the slowest), so the files' seconds on CI stand in for it.
 * Refresh from a CI run's per-file times when the order drifts (docs/design.md, "Tests").
 */
const CI_SECONDS = {
  'test/assignments/workflows.test.ts': 84,
  'test/stack/crash.test.ts': 74,
  'test/assignments/upgrade.test.ts': 55,
  'test/rotation/slow-webhook-receiver.test.ts': 47,
  'test/messages/quiet-hours.test.ts': 47,
  'test/assignments/operator-buttons.test.ts': 46,
  'test/conversations/npm-start.test.ts': 45,
  'test/routing/first-response.test.ts': 41,
  'test/assignments/upgrade-clocks.test.ts': 41,
  'test/routing/processes.test.ts': 40,
  'test/rotation/worker-restart.test.ts': 38,
  'test/message-batches/crash.test.ts': 36,
  'test/stack/cli-finds-stack.test.ts': 35,
  'test/stack/start.test.ts': 34,
  'test/stack/simulator.test.ts': 33,
  'test/messages/delivery.test.ts': 30,
  'test/stack/start-server-engine.test.ts': 30,
  'test/integrations/crm-worker-crash.test.ts': 29,
  'test/api/pathological-bodies.test.ts': 28,
  'test/rotation/replace.test.ts': 28,
  'test/carriers/business-numbers.test.ts': 27,
  'test/stack/engine-server.test.ts': 26,
  'test/stack/business-numbers.test.ts': 25,
  'test/stack/twilio.test.ts': 25,
  'test/operations/ui.test.ts': 24,
  'test/integrations/hubspot-routing.test.ts': 24,
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
