import { describeInProcessFiles } from '../support/in-process';

/* eslint-disable @typescript-eslint/no-require-imports */
describeInProcessFiles(__dirname, {
  'admin-refusal': () => require('./in-process/admin-refusal'),
  auth: () => require('./in-process/auth'),
  backpressure: () => require('./in-process/backpressure'),
  'body-bounds': () => require('./in-process/body-bounds'),
  'business-bound-tokens': () => require('./in-process/business-bound-tokens'),
  'business-claim': () => require('./in-process/business-claim'),
  'content-type': () => require('./in-process/content-type'),
  health: () => require('./in-process/health'),
  hygiene: () => require('./in-process/hygiene'),
  'openapi-docs-browser': () => require('./in-process/openapi-docs-browser'),
  'openapi-document': () => require('./in-process/openapi-document'),
  'pathological-bodies': () => require('./in-process/pathological-bodies'),
  poison: () => require('./in-process/poison'),
  robustness: () => require('./in-process/robustness'),
  root: () => require('./in-process/root'),
  'tenant-fairness': () => require('./in-process/tenant-fairness'),
  'token-audiences': () => require('./in-process/token-audiences'),
  unavailable: () => require('./in-process/unavailable'),
  'unknown-fields': () => require('./in-process/unknown-fields'),
});
