import { describeInProcessFiles } from '../support/in-process';

/* eslint-disable @typescript-eslint/no-require-imports */
describeInProcessFiles(__dirname, {
  api: () => require('./in-process/api'),
  crash: () => require('./in-process/crash'),
  list: () => require('./in-process/list'),
  sending: () => require('./in-process/sending'),
});
