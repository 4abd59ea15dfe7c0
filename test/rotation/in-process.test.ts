import { describeInProcessFiles } from '../support/in-process';

/* eslint-disable @typescript-eslint/no-require-imports */
describeInProcessFiles(__dirname, {
  cycling: () => require('./in-process/cycling'),
  operator: () => require('./in-process/operator'),
  replace: () => require('./in-process/replace'),
  'slow-webhook-receiver': () => require('./in-process/slow-webhook-receiver'),
  validation: () => require('./in-process/validation'),
  'worker-restart': () => require('./in-process/worker-restart'),
});
