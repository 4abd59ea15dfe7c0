const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/*
 * The longest files start first, so that two workers finish together rather than one running a long file
 * alone at the end. Jest orders by the times its cache kept from the last run; a fresh clone has no cache
 * (jest would start with the biggest files, not the slowest), so the files' seconds on CI stand in for it.
 * Refresh from a CI run's per-file times when the order drifts (docs/design.md, "Tests").
 */
const CI_SECONDS = {
  'test/stack/crash.test.ts': 140,
  'test/messages/quiet-hours.test.ts': 62,
  'test/assignments/workflows.test.ts': 60,
  'test/stack/simulator.test.ts': 51,
  'test/routing/npm-start.test.ts': 48,
  'test/message-batches/crash.test.ts': 47,
  'test/stack/business-numbers.test.ts': 43,
  'test/integrations/hubspot-routing.test.ts': 40,
  'test/integrations/hubspot.test.ts': 40,
  'test/integrations/crm-worker-crash.test.ts': 37,
  'test/stack/crm-fakes.test.ts': 33,
  'test/stack/start-server-engine.test.ts': 42,
  'test/rotation/slow-webhook-receiver.test.ts': 41,
  'test/stack/start.test.ts': 40,
  'test/routing/processes.test.ts': 40,
  'test/stack/twilio.test.ts': 38,
  'test/rotation/replace.test.ts': 29,
  'test/messages/delivery.test.ts': 27,
  'test/carriers/business-numbers.test.ts': 24,
  'test/rotation/worker-restart.test.ts': 23,
  'test/stack/engine-server.test.ts': 23,
  'test/rotation/cycling.test.ts': 22,
  'test/assignments/expiry.test.ts': 21,
  'test/events/webhooks.test.ts': 20,
  'test/operations/ui.test.ts': 20,
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
