const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/*
 * The longest files start first, so that the workers finish together rather than one running a long file
 * alone at the end. Jest orders by the times its cache kept from the last run; a fresh clone has no cache
 * (jest would start with the biggest files, not the slowest), so the files' seconds in a whole run stand in
 * for it (the slowest 32 files of a whole run of a fresh clone of main on 2026-11-29, two workers, 604 s; the server-engine rollout measured alone).
 * Refresh from a whole run's per-file times when the order drifts (docs/design.md, "Suite: jest's own runner").
 */
const CI_SECONDS = {
  'test/stack/engine-server.test.ts': 65,
  'test/stack/journeys.test.ts': 62,
  'test/operations/worker-versioning.test.ts': 20,
  'test/stack/crash.test.ts': 49,
  'test/stack/power-loss.test.ts': 60,
  'test/message-batches/crash.test.ts': 26,
  'test/rotation/slow-webhook-receiver.test.ts': 25,
  'test/operations/upgrade-runs.test.ts': 25,
  'test/routing/processes.test.ts': 24,
  'test/assignments/operator-buttons.test.ts': 24,
  'test/stack/terminal-logs.test.ts': 23,
  'test/stack/twilio.test.ts': 23,
  'test/integrations/crm-worker-crash.test.ts': 22,
  'test/rotation/worker-restart.test.ts': 20,
  'test/stack/start.test.ts': 19,
  'test/routing/first-response.test.ts': 17,
  'test/conversations/inbox.test.ts': 17,
  'test/stack/cli-finds-stack.test.ts': 15,
  'test/operations/ui.test.ts': 15,
  'test/messages/redelivery.test.ts': 15,
  'test/carriers/business-numbers.test.ts': 14,
  'test/routing/api.test.ts': 14,
  'test/events/webhooks.test.ts': 14,
  'test/stack/temporal-tls.test.ts': 14,
  'test/stack/start-server-engine.test.ts': 13,
  'test/assignments/expiry.test.ts': 13,
  'test/integrations/crm-sync.test.ts': 13,
  'test/integrations/hubspot-routing.test.ts': 12,
  'test/events/sweep.test.ts': 12,
  'test/nexus/example-address.test.ts': 12,
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
