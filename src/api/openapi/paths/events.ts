import { EVENT_PATTERNS } from '../../../domain';
import { EVENT_SCHEMAS } from '../../../use-cases/events/contract';
import { EVENT_OPERATIONS as ops, EVENTS_TAG } from '../../../use-cases/events/operations';
import type { ApiPart } from '../components';
import { inBusiness, PREFIX, queryParameter, ref } from '../components';
import { operationOf } from '../operation';

export const eventsApi: ApiPart = {
  tags: [{ name: 'Events', description: EVENTS_TAG }],
  contracts: EVENT_SCHEMAS,
  paths: {
    [`${PREFIX}/events`]: inBusiness({
      get: operationOf('listEvents', 'Events', ops.listEvents, {
        parameters: [
          queryParameter('after', 'The `next_cursor` of a previous page of this caller (the same business and user); absent: from the first event.', { type: 'string', maxLength: 100 }),
          queryParameter('type', 'Only this type, or `assignment.*` / `message.*` / `rotation.*` / `routing.*` / `client.*`.', { enum: [...EVENT_PATTERNS] }),
          { name: 'client', in: 'query', required: false, description: 'Only events about this client; another user\'s id matches nothing.', schema: ref('schemas', 'ResourceId') },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
        ],
      }),
    }),
  },
};
