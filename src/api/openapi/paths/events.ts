import { EVENT_PATTERNS } from '../../../domain';
import { EVENT_SCHEMAS } from '../../../use-cases/events/contract';
import type { ApiPart } from '../components';
import { badParameters, inBusiness, json, operation, PREFIX, queryParameter, ref, routeResponses } from '../components';

const assignmentEvent = {
  id: '0f8b6f7e-8f7a-4a43-9d0c-0d9a1f1c2b33',
  type: 'assignment.expired',
  created_at: '2030-01-01T00:00:00.012Z',
  business: 'acme',
  data: {
    client: 'c1',
    agent: 'a1',
    dt_until: '2030-01-01T00:00:00.000Z',
    status: 'expired',
    ds_notes: 'new lead',
    workflow_id: 'client/acme/c1/5b0c0a8e-2f1d-4c55-9a0e-6c3f2d1b7e44',
    assigned_at: '2026-11-22T05:14:13.462Z',
    updated_at: '2030-01-01T00:00:00.010Z',
    ended_at: '2030-01-01T00:00:00.009Z',
    ended_by: { actor: 'system', reason: 'expiry' },
    rotation: false,
    routed_by: null,
    reason: 'expiry',
  },
};

export const EVENT_EXAMPLE = assignmentEvent;

const FEED_ORDER =
  'The caller\'s events in this business, oldest first, in the order their changes were committed: an event never appears before one ' +
  'that an earlier page ended with. Poll with the last `next_cursor` to follow along; events are kept.';

export const eventsApi: ApiPart = {
  tags: [
    {
      name: 'Events',
      description:
        'Every change of an assignment or a message, and a rotation stopped, recorded in the transaction that made it: `assignment.created`, ' +
        '`assignment.updated`, `assignment.expired`, `assignment.unassigned`, `message.scheduled`, `message.sending`, `message.sent`, ' +
        '`message.delivered`, `message.read` (WhatsApp\'s read receipt), `message.undelivered` (a carrier\'s receipt), `message.failed`, `message.canceled`, `message.suppressed` (not sent: the recipient opted out), `message.received` (a text the client sent), ' +
        '`rotation.stopped`, `routing.assigned`, `routing.queued`, `routing.reassigned`, `routing.escalated`, `routing.no_eligible_agent` (lead routing\'s decisions; `routing.reassigned` also names `previous_agent`), `client.deleted` (a client erased: its earlier events lose its phone, name and texts), `crm.owner_sync_failed` and `crm.owner_conflict` (a connected CRM\'s lead, see `docs/integrations.md`), `conversation.opened`, `conversation.snoozed`, `conversation.reopened`, `conversation.closed`, `conversation.overdue` and `conversation.note_added` (see Conversations). ' +
        'Read them here, in commit order, or receive them by webhook.',
    },
  ],
  contracts: EVENT_SCHEMAS,
  paths: {
    [`${PREFIX}/events`]: inBusiness({
      get: operation('listEvents', 'Events', 'Read the caller\'s events', {
        description: FEED_ORDER,
        parameters: [
          queryParameter('after', 'The `next_cursor` of a previous page of this caller (the same business and user); absent: from the first event.', { type: 'string', maxLength: 100 }),
          queryParameter('type', 'Only this type, or `assignment.*` / `message.*` / `rotation.*` / `routing.*` / `client.*`.', { enum: [...EVENT_PATTERNS] }),
          { name: 'client', in: 'query', required: false, description: 'Only events about this client; another user\'s id matches nothing.', schema: ref('schemas', 'ResourceId') },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
        ],
        responses: routeResponses(false, {
          200: json('One page.', ref('schemas', 'EventPage'), { example: { events: [assignmentEvent], next_cursor: 'AWpHrA3pdisggkhddP93qMS9H7evIYdbmwFq8w2-RnKUfltF8A', has_more: false } }),
          400: badParameters('A query parameter is invalid; the detail names it. A cursor of another caller, or one altered, is an invalid `after`.', {
            invalidAfter: 'Invalid after: pass next_cursor from a previous page',
            invalidLimit: 'Invalid limit: Too big: expected number to be <=100',
          }),
        }),
      }),
    }),
  },
};
