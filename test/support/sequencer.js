const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/*
 * The longest files start first, so that the workers finish together rather than one running a long file
 * alone at the end. Jest orders by the times its cache kept from the last run; a fresh clone has no cache
 * (jest would start with the biggest files, not the slowest), so the files' seconds in a whole run stand in
 * for it (the slowest 32 files of a whole run of a fresh clone of main on 2026-11-29, two workers).
 * Refresh from a whole run's per-file times when the order drifts (docs/design.md, "Suite: jest's own runner").
 */
const CI_SECONDS = {
  'test/stack/journeys.test.ts': 66,
  'test/stack/crash.test.ts': 52,
  'test/conversations/npm-start.test.ts': 39,
  'test/routing/processes.test.ts': 38,
  'test/api/tenant-fairness.test.ts': 38,
  'test/rotation/slow-webhook-receiver.test.ts': 34,
  'test/rotation/replace.test.ts': 30,
  'test/message-batches/crash.test.ts': 29,
  'test/stack/terminal-logs.test.ts': 27,
  'test/stack/twilio.test.ts': 27,
  'test/carriers/business-numbers.test.ts': 27,
  'test/integrations/crm-worker-crash.test.ts': 26,
  'test/stack/start-server-engine.test.ts': 25,
  'test/stack/cli-finds-stack.test.ts': 25,
  'test/assignments/operator-buttons.test.ts': 24,
  'test/assignments/upgrade.test.ts': 23,
  'test/assignments/upgrade-clocks.test.ts': 23,
  'test/rotation/worker-restart.test.ts': 23,
  'test/routing/first-response.test.ts': 23,
  'test/routing/api.test.ts': 23,
  'test/routing/npm-start.test.ts': 23,
  'test/assignments/expiry.test.ts': 22,
  'test/rotation/cycling.test.ts': 22,
  'test/stack/start.test.ts': 21,
  'test/stack/engine-server.test.ts': 21,
  'test/conversations/reply-clock.test.ts': 20,
  'test/conversations/inbox.test.ts': 19,
  'test/operations/ui.test.ts': 19,
  'test/integrations/hubspot.test.ts': 18,
  'test/rotation/workflow.test.ts': 18,
  'test/messages/delivery.test.ts': 17,
  'test/messages/channels.test.ts': 17,

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
