import { describeInProcessFiles } from '../support/in-process';

/* eslint-disable @typescript-eslint/no-require-imports */
describeInProcessFiles(__dirname, {
  dashboard: () => require('./in-process/dashboard'),
  housekeeping: () => require('./in-process/housekeeping'),
  'inbound-secret-redaction': () => require('./in-process/inbound-secret-redaction'),
  messages: () => require('./in-process/messages'),
  'privacy-temporal': () => require('./in-process/privacy-temporal'),
  'reconciler-scope': () => require('./in-process/reconciler-scope'),
  'telemetry-replay': () => require('./in-process/telemetry-replay'),
  'telemetry-traces': () => require('./in-process/telemetry-traces'),
  'temporal-payload-codec': () => require('./in-process/temporal-payload-codec'),
  ui: () => require('./in-process/ui'),
  'upgrade-runs': () => require('./in-process/upgrade-runs'),
});
