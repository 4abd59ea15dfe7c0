import { describeInProcessFiles } from '../support/in-process';

/* eslint-disable @typescript-eslint/no-require-imports */
describeInProcessFiles(__dirname, {
  'clients-agents': () => require('./in-process/clients-agents'),
  erasure: () => require('./in-process/erasure'),
  'erasure-wal': () => require('./in-process/erasure-wal'),
  management: () => require('./in-process/management'),
});
