import { describeInProcessFiles } from '../support/in-process';

/* eslint-disable @typescript-eslint/no-require-imports */
describeInProcessFiles(__dirname, {
  'behind-worker': () => require('./in-process/behind-worker'),
  'client-run-burst': () => require('./in-process/client-run-burst'),
  'client-run-reads': () => require('./in-process/client-run-reads'),
  expiry: () => require('./in-process/expiry'),
  'operator-buttons': () => require('./in-process/operator-buttons'),
  ownership: () => require('./in-process/ownership'),
  validation: () => require('./in-process/validation'),
  'without-worker': () => require('./in-process/without-worker'),
});
