import { describeInProcessFiles } from '../support/in-process';

/* eslint-disable @typescript-eslint/no-require-imports */
describeInProcessFiles(__dirname, {
  feed: () => require('./in-process/feed'),
  sweep: () => require('./in-process/sweep'),
  'webhook-addresses': () => require('./in-process/webhook-addresses'),
  'webhook-answer-cap': () => require('./in-process/webhook-answer-cap'),
  'webhook-connect-guard': () => require('./in-process/webhook-connect-guard'),
  'webhook-secrets': () => require('./in-process/webhook-secrets'),
  webhooks: () => require('./in-process/webhooks'),
});
