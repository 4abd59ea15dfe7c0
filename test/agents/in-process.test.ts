import { describeInProcessFiles } from '../support/in-process';

/* eslint-disable @typescript-eslint/no-require-imports */
describeInProcessFiles(__dirname, {
  availability: () => require('./in-process/availability'),
  management: () => require('./in-process/management'),
});
