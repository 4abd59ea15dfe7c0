import { describeInProcessFiles } from '../support/in-process';

/* eslint-disable @typescript-eslint/no-require-imports */
describeInProcessFiles(__dirname, {
  'connector-business-tokens': () => require('./in-process/connector-business-tokens'),
  connectors: () => require('./in-process/connectors'),
  'crm-addresses': () => require('./in-process/crm-addresses'),
  'crm-error-codes': () => require('./in-process/crm-error-codes'),
  'crm-lead-history': () => require('./in-process/crm-lead-history'),
  hubspot: () => require('./in-process/hubspot'),
  'hubspot-routing': () => require('./in-process/hubspot-routing'),
  'inbound-rate-limit': () => require('./in-process/inbound-rate-limit'),
  pipedrive: () => require('./in-process/pipedrive'),
  'public-base-url': () => require('./in-process/public-base-url'),
  salesforce: () => require('./in-process/salesforce'),
  'salesforce-urls': () => require('./in-process/salesforce-urls'),
});
