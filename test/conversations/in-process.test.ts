import { describeInProcessFiles } from '../support/in-process';

/* eslint-disable @typescript-eslint/no-require-imports */
describeInProcessFiles(__dirname, {
  inbox: () => require('./in-process/inbox'),
  'reply-clock': () => require('./in-process/reply-clock'),
});
