import { EVENT_SCHEMAS, EventFeedQuery } from '../../../use-cases/events/contract';
import { EVENT_OPERATIONS as ops, EVENTS_TAG } from '../../../use-cases/events/operations';
import type { ApiPart } from '../components';
import { inBusiness, PREFIX } from '../components';
import { queryParameters } from '../from-zod';
import { operationOf } from '../operation';

export const eventsApi: ApiPart = {
  tags: [{ name: 'Events', description: EVENTS_TAG }],
  contracts: EVENT_SCHEMAS,
  paths: {
    [`${PREFIX}/events`]: inBusiness({ get: operationOf('listEvents', 'Events', ops.listEvents, { parameters: queryParameters(EventFeedQuery) }) }),
  },
};
