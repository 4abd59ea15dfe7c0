import { describeInProcessFiles } from '../support/in-process';

/* eslint-disable @typescript-eslint/no-require-imports */
describeInProcessFiles(__dirname, {
  'accept-shape': () => require('./in-process/accept-shape'),
  api: () => require('./in-process/api'),
  'cancel-ui': () => require('./in-process/cancel-ui'),
  channels: () => require('./in-process/channels'),
  delivery: () => require('./in-process/delivery'),
  durability: () => require('./in-process/durability'),
  list: () => require('./in-process/list'),
  'quiet-hours': () => require('./in-process/quiet-hours'),
  'send-at': () => require('./in-process/send-at'),
  'status-search-attribute': () => require('./in-process/status-search-attribute'),
});
