const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/*
 * The longest files start first, so that the workers finish together rather than one running a long file
 * alone at the end. Jest orders by the times its cache kept from the last run; a fresh clone has no cache
 * (jest would start with the biggest files, not the slowest), so the files' seconds in a whole run stand in
 * for it (jest's cache of a whole run of main on 2026-11-28, two workers; the six files of "Slow files:
 * clocks and waits" and three of "Slow files: waits in the middle rank" scaled by what those changes measured).
 * Refresh from a whole run's per-file times when the order drifts (docs/design.md, "Suite: jest's own runner").
 */
const CI_SECONDS = {
  // The five files on the simulator stack it replaced, less three boots and the shortened WhatsApp window (docs/design.md, "Whole-stack files share one start").
  'test/stack/journeys.test.ts': 60,
  'test/stack/crash.test.ts': 38,
  'test/conversations/npm-start.test.ts': 37,
  'test/rotation/slow-webhook-receiver.test.ts': 34,
  'test/assignments/upgrade.test.ts': 32,
  'test/assignments/operator-buttons.test.ts': 26,
  'test/assignments/upgrade-clocks.test.ts': 26,
  'test/message-batches/crash.test.ts': 26,
  'test/rotation/worker-restart.test.ts': 25,
  'test/messages/delivery.test.ts': 25,
  'test/rotation/replace.test.ts': 25,
  'test/stack/terminal-logs.test.ts': 25,
  'test/routing/first-response.test.ts': 23,
  'test/routing/processes.test.ts': 22,
  'test/integrations/crm-worker-crash.test.ts': 21,
  'test/assignments/expiry.test.ts': 21,
  'test/assignments/workflows.test.ts': 13,
  'test/stack/twilio.test.ts': 21,
  'test/api/unavailable.test.ts': 9,
  'test/stack/start-server-engine.test.ts': 20,
  'test/rotation/cycling.test.ts': 19,
  'test/stack/engine-server.test.ts': 19,
  'test/stack/start.test.ts': 19,
  'test/carriers/business-numbers.test.ts': 19,
  'test/integrations/hubspot-routing.test.ts': 12,
  'test/messages/channels.test.ts': 18,
  'test/events/webhooks.test.ts': 12,
  'test/conversations/inbox.test.ts': 16,
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
