import { describeInProcessFiles } from '../support/in-process';

/* eslint-disable @typescript-eslint/no-require-imports */
describeInProcessFiles(__dirname, {
  api: () => require('./in-process/api'),
  'first-response': () => require('./in-process/first-response'),
  'held-clients': () => require('./in-process/held-clients'),
  processes: () => require('./in-process/processes'),
  reroute: () => require('./in-process/reroute'),
  resources: () => require('./in-process/resources'),
  'unowned-replies': () => require('./in-process/unowned-replies'),
});
