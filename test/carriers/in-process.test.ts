import { describeInProcessFiles } from '../support/in-process';

/* eslint-disable @typescript-eslint/no-require-imports */
describeInProcessFiles(__dirname, {
  'business-numbers': () => require('./in-process/business-numbers'),
  'channels-end-to-end-telnyx': () => require('./in-process/channels-end-to-end-telnyx'),
  'channels-end-to-end-twilio': () => require('./in-process/channels-end-to-end-twilio'),
  'channels-end-to-end-vonage': () => require('./in-process/channels-end-to-end-vonage'),
  'first-contact': () => require('./in-process/first-contact'),
  inbound: () => require('./in-process/inbound'),
  'opt-out': () => require('./in-process/opt-out'),
  'opt-out-nexus': () => require('./in-process/opt-out-nexus'),
  receipts: () => require('./in-process/receipts'),
  'telnyx-end-to-end': () => require('./in-process/telnyx-end-to-end'),
  'vonage-end-to-end': () => require('./in-process/vonage-end-to-end'),
});
