import { badParameters, operations } from '../input/operation-docs';
import { Event, EventPage } from './contract';

/* What the document says of the events' feed and of a delivery to a webhook (src/use-cases/input/operation-docs.ts). */

export const EVENT_EXAMPLE = {
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

export const EVENTS_TAG =
  'Every change of an assignment or a message, and a rotation stopped, recorded in the transaction that made it: `assignment.created`, ' +
  '`assignment.updated`, `assignment.expired`, `assignment.unassigned`, `message.scheduled`, `message.sending`, `message.sent`, ' +
  '`message.delivered`, `message.read` (WhatsApp\'s read receipt), `message.undelivered` (a carrier\'s receipt), `message.failed`, `message.canceled`, `message.suppressed` (not sent: the recipient opted out), `message.received` (a text the client sent), ' +
  '`rotation.stopped`, `routing.assigned`, `routing.queued`, `routing.reassigned`, `routing.escalated`, `routing.no_eligible_agent` (lead routing\'s decisions; `routing.reassigned` also names `previous_agent`), `client.deleted` (a client erased: its earlier events lose its phone, name and texts), `crm.owner_sync_failed` and `crm.owner_conflict` (a connected CRM\'s lead, see `docs/integrations.md`), `conversation.opened`, `conversation.snoozed`, `conversation.reopened`, `conversation.closed`, `conversation.overdue` and `conversation.note_added` (see Conversations). ' +
  'Read them here, in commit order, or receive them by webhook.';

export const EVENT_OPERATIONS = operations({
  listEvents: {
    summary: 'Read the caller\'s events',
    description:
      'The caller\'s events in this business, oldest first, in the order their changes were committed: an event never appears before one ' +
      'that an earlier page ended with. Poll with the last `next_cursor` to follow along; events are kept.',
    responses: {
      200: { description: 'One page.', schema: EventPage, example: { events: [EVENT_EXAMPLE], next_cursor: 'AWpHrA3pdisggkhddP93qMS9H7evIYdbmwFq8w2-RnKUfltF8A', has_more: false } },
      400: badParameters('A query parameter is invalid; the detail names it. A cursor of another caller, or one altered, is an invalid `after`.', {
        invalidAfter: 'Invalid after: pass next_cursor from a previous page',
        invalidLimit: 'Invalid limit: Too big: expected number to be <=100',
      }),
    },
  },
  receiveEvent: {
    summary: 'An event, POSTed to each subscribed URL',
    description:
      'Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` under the ' +
      'secret\'s bytes (the base64 after `whsec_`); during a rotation it carries two space-separated signatures. Answer 2xx within 10 seconds. ' +
      'Network errors, timeouts, 408, 429 and 5xx are retried with backoff for up to 3 days (after `Retry-After` when you send one); ' +
      '410 disables the webhook; any other answer is final for that event. The same event can arrive more than once: deduplicate by `webhook-id`.',
    body: { schema: Event, example: EVENT_EXAMPLE },
    responses: {
      '2XX': { description: 'Received.' },
      410: { description: 'Gone: the webhook is disabled and receives nothing more.' },
      default: { description: 'Retried if 408, 429 or 5xx; otherwise final for this event.' },
    },
  },
});
