import type { ApiPart } from '../components';
import { json, operation } from '../components';
import { publicDoorLimited } from './public-door-limit';

const ready = (status: string, value: string) => ({
  type: 'object',
  required: ['status', 'database', 'temporal'],
  additionalProperties: false,
  properties: { status: { const: status }, database: { enum: value === 'ok' ? ['ok'] : ['ok', 'unreachable'] }, temporal: { enum: value === 'ok' ? ['ok'] : ['ok', 'unreachable'] } },
});

export const healthApi: ApiPart = {
  tags: [{ name: 'Health', description: 'For load balancers and orchestrators; no token needed.' }],
  paths: {
    '/healthz': {
      get: operation('getHealth', 'Health', 'Is the process up', {
        description: 'Answers as long as the API process runs; checks nothing else.',
        security: [],
        responses: {
          200: json('The process is up.', { type: 'object', required: ['status'], additionalProperties: false, properties: { status: { const: 'ok' } } }, { example: { status: 'ok' } }),
        },
      }),
    },
    '/readyz': {
      get: operation('getReadiness', 'Health', 'Can it serve requests', {
        description:
          'Checks, within 2 seconds, that PostgreSQL answers a query and the Temporal server answers a call; that answer serves every probe of the next second ' +
          '(a flood of probes costs one check a second). Limited per source address as the other unauthenticated doors.',
        security: [],
        responses: {
          200: json('PostgreSQL and Temporal are reachable.', ready('ready', 'ok'), { example: { status: 'ready', database: 'ok', temporal: 'ok' } }),
          503: json('PostgreSQL or Temporal is not reachable; the body says which.', ready('not ready', 'any'), {
            example: { status: 'not ready', database: 'ok', temporal: 'unreachable' },
          }),
          429: publicDoorLimited(),
        },
      }),
    },
  },
};
