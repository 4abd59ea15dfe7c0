import { EVENT_PATTERNS, EVENT_REASONS, type EventType } from '../../../domain';
import type { ApiPart, OpenApiObject } from '../components';
import { badParameters, closedObject, inBusiness, json, operation, PREFIX, queryParameter, ref, routeResponses } from '../components';
import { Message } from '../../../use-cases/messages/contract';
import { Conversation, ConversationNote } from '../../../use-cases/conversations/contract';
import { Assignment } from '../../../use-cases/assignments/contract';
import { RoutingDecision } from '../../../use-cases/routing/contract';
import { inlineSchema } from '../from-zod';
import { Rotation } from '../../../use-cases/rotation/contract';

const ASSIGNMENT_TYPES: EventType[] = ['assignment.created', 'assignment.updated', 'assignment.expired', 'assignment.unassigned'];
const MESSAGE_TYPES: EventType[] = ['message.scheduled', 'message.sending', 'message.sent', 'message.delivered', 'message.read', 'message.undelivered', 'message.failed', 'message.canceled', 'message.suppressed'];
const ROTATION_TYPES: EventType[] = ['rotation.stopped'];
const ROUTING_TYPES: EventType[] = ['routing.assigned', 'routing.queued', 'routing.reassigned', 'routing.escalated', 'routing.no_eligible_agent'];
const CLIENT_TYPES: EventType[] = ['client.deleted'];

const reason = {
  enum: [...EVENT_REASONS],
  description:
    'What made the change: `api` a request of the owner (HTTP or Nexus) — and, for a message, its sending that followed; ' +
    '`expiry` the assignment\'s `dt_until`; `operator` a cancellation in the Temporal UI; `rule` the client\'s rotation or a CRM lead\'s workflow; `carrier` a carrier\'s delivery receipt or a text the client sent; ' +
    '`client_deleted` / `agent_deleted` the owner deleting the client (its erasure) or an agent, which ended the assignment, canceled the message or stopped the rotation; ' +
    '`routing` lead routing ending an assignment whose first response was missed; `snooze` a conversation\'s snooze ending; `reply_clock` a conversation\'s answer coming due (`next_response_within`).',
};

/** The resource's own schema with the fields an event adds, so the two cannot drift apart. */
function withEventFields(resource: OpenApiObject, extra: Record<string, OpenApiObject>, description: string): OpenApiObject {
  return {
    type: 'object',
    description,
    required: [...Object.keys(extra), ...resource.required],
    additionalProperties: false,
    properties: { ...extra, ...resource.properties },
  };
}

/** The decision, its reason, and for `routing.reassigned` the agent it was taken from. */
function routingEventData(): OpenApiObject {
  const data = withEventFields(
    inlineSchema(RoutingDecision, 'output'),
    { reason },
    'The decision as `GET /routing-decisions/{id}` shows it, and the reason (`api` a route request, `rule` the queue assigning a waiting client or the first-response clock reassigning or escalating).',
  );
  return { ...data, properties: { ...data.properties, previous_agent: { ...ref('schemas', 'ResourceId'), description: '`routing.reassigned` only: the owner that did not answer in time.' } } };
}

function eventSchema(types: EventType[], data: string, description: string): OpenApiObject {
  return {
    type: 'object',
    description,
    required: ['id', 'type', 'created_at', 'business', 'data'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', format: 'uuid', description: 'The event\'s id; a webhook carries it as `webhook-id`, the same on every retry.' },
      type: { enum: types },
      created_at: { ...ref('schemas', 'DateTime'), description: 'When the change was committed.' },
      business: { type: 'string', examples: ['acme'] },
      data: ref('schemas', data),
    },
  };
}

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
  schemas: {
    AssignmentEventData: withEventFields(
      inlineSchema(Assignment, 'output'),
      { client: ref('schemas', 'ResourceId'), reason },
      'The assignment as `GET /clients/{_id}/agents?status=all` shows it after the change, with its client and the reason.',
    ),
    MessageEventData: withEventFields(inlineSchema(Message, 'output'), { reason }, 'The message as `GET /messages/{_id}` shows it after the change, and the reason.'),
    RotationEventData: withEventFields(
      inlineSchema(Rotation, 'output'),
      { reason },
      'The rotation as `GET /clients/{_id}/rotation` shows it after the change, and the reason (`api` a DELETE, `operator` a cancellation in the Temporal UI).',
    ),
    AssignmentEvent: eventSchema(ASSIGNMENT_TYPES, 'AssignmentEventData', 'A change of an assignment.'),
    MessageEvent: eventSchema(MESSAGE_TYPES, 'MessageEventData', 'A change of a message.'),
    ReceivedMessageEventData: withEventFields(
      inlineSchema(Message, 'output'),
      {
        reason,
        assignments: {
          type: 'array',
          description: 'Who has the client at the instant the text came in: its active assignments whose `dt_until` is ahead, oldest first. Empty for a message to a bare phone.',
          items: closedObject(['agent', 'dt_until', 'rotation', 'current_period'], {
            agent: ref('schemas', 'ResourceId'),
            dt_until: ref('schemas', 'DateTime'),
            rotation: { type: 'boolean', description: 'Made by the client\'s rotation.' },
            current_period: { type: 'boolean', description: 'This agent holds the period of the client\'s rotation in progress now.' },
          }),
        },
      },
      'The inbound message as `GET /messages/{_id}` shows it, the reason (`carrier`), and the client\'s assignments in force when it came in.',
    ),
    ReceivedMessageEvent: eventSchema(['message.received'], 'ReceivedMessageEventData', 'A text the client sent, matched to the latest message to its number that the carrier accepted.'),
    RotationEvent: eventSchema(ROTATION_TYPES, 'RotationEventData', 'A rotation stopped.'),
    RoutingEventData: routingEventData(),
    RoutingEvent: eventSchema(
      ROUTING_TYPES,
      'RoutingEventData',
      'A routing decision: a client assigned or queued, nobody eligible under a `reject` policy, a client moved to another member after a missed first response, or escalated (its owner keeps it).',
    ),
    ClientEventData: {
      type: 'object',
      description: 'The erased client\'s id, when it was erased, and the reason (`api`: its owner\'s DELETE).',
      required: ['client', 'deleted_at', 'reason'],
      additionalProperties: false,
      properties: { client: ref('schemas', 'ResourceId'), deleted_at: ref('schemas', 'DateTime'), reason },
    },
    ClientEvent: eventSchema(CLIENT_TYPES, 'ClientEventData', 'A client erased.'),
    CrmOwnerSyncFailedEventData: {
      type: 'object',
      description: 'The lead whose owner could not be written back into its CRM, and why (our words and the CRM\'s status code).',
      required: ['client', 'crm', 'record_id', 'agent', 'crm_owner_id', 'error', 'reason'],
      additionalProperties: false,
      properties: {
        client: ref('schemas', 'ResourceId'),
        crm: { enum: ['hubspot', 'salesforce', 'pipedrive'] },
        record_id: { type: 'string', description: 'The record\'s id in the CRM.' },
        agent: { type: ['string', 'null'], description: 'The agent whose CRM owner was to be written.' },
        crm_owner_id: { type: ['string', 'null'], description: 'That owner\'s id in the CRM; null when `agent_map` names none.' },
        error: { type: 'string', examples: ['HubSpot refused to write the contact owner (HTTP 403)', 'Agent a1 has no HubSpot owner in agent_map: the owner was not written back'] },
        reason,
      },
    },
    CrmOwnerConflictEventData: {
      type: 'object',
      description: 'A person changed the lead\'s owner in the CRM after ours was written (not our own write echoing back): both owners, and whether the assignment here followed (`follow_crm_owner`).',
      required: ['client', 'crm', 'record_id', 'agent', 'crm_owner_id', 'crm_agent', 'crm_owner_id_now', 'followed', 'reason'],
      additionalProperties: false,
      properties: {
        client: ref('schemas', 'ResourceId'),
        crm: { enum: ['hubspot', 'salesforce', 'pipedrive'] },
        record_id: { type: 'string' },
        agent: { type: ['string', 'null'], description: 'Our agent, whose owner we wrote.' },
        crm_owner_id: { type: ['string', 'null'], description: 'The owner we wrote.' },
        crm_agent: { type: ['string', 'null'], description: 'The agent `agent_map` gives the new owner; null when it names none.' },
        crm_owner_id_now: { type: ['string', 'null'], description: 'The owner the CRM has now (null: none).' },
        followed: { type: 'boolean', description: 'Whether the assignment here moved to `crm_agent`.' },
        reason,
      },
    },
    ConversationEventData: withEventFields(
      inlineSchema(Conversation, 'output'),
      { reason },
      'The conversation as `GET /conversations/{_id}` shows it after the change (`unread` null: it is an agent\'s), and the reason: `carrier` a text of the client opened it, `api` its owner, `snooze` its snooze ended, `reply_clock` its answer came due.',
    ),
    ConversationEvent: eventSchema(
      ['conversation.opened', 'conversation.snoozed', 'conversation.reopened', 'conversation.closed', 'conversation.overdue'],
      'ConversationEventData',
      'A conversation opened by a text of the client (its first, or one to a closed or snoozed conversation), snoozed, reopened (its snooze ended, or its owner reopened it), closed, or overdue (waiting past its routing policy\'s `next_response_within`: once per waiting period, `assignees` naming its holders).',
    ),
    ConversationNoteEventData: withEventFields(inlineSchema(ConversationNote, 'output'), { client: ref('schemas', 'ResourceId'), reason }, 'The note, its client, and the reason (`api`).'),
    ConversationNoteEvent: eventSchema(['conversation.note_added'], 'ConversationNoteEventData', 'An internal note added to a conversation.'),
    CrmOwnerSyncFailedEvent: eventSchema(['crm.owner_sync_failed'], 'CrmOwnerSyncFailedEventData', 'A lead\'s owner could not be written back into its CRM.'),
    CrmOwnerConflictEvent: eventSchema(['crm.owner_conflict'], 'CrmOwnerConflictEventData', 'A person changed a lead\'s owner in its CRM.'),
    Event: {
      oneOf: [
        ref('schemas', 'AssignmentEvent'),
        ref('schemas', 'MessageEvent'),
        ref('schemas', 'ReceivedMessageEvent'),
        ref('schemas', 'RotationEvent'),
        ref('schemas', 'RoutingEvent'),
        ref('schemas', 'ClientEvent'),
        ref('schemas', 'CrmOwnerSyncFailedEvent'),
        ref('schemas', 'CrmOwnerConflictEvent'),
        ref('schemas', 'ConversationEvent'),
        ref('schemas', 'ConversationNoteEvent'),
      ],
    },
    EventPage: closedObject(['events', 'next_cursor', 'has_more'], {
      events: { type: 'array', items: ref('schemas', 'Event'), description: 'Oldest first, in commit order.' },
      next_cursor: {
        type: ['string', 'null'],
        description:
          'Pass as `after` to read on. On the last page too: keep it and ask again later. Null only when there are no events at all. ' +
          'Opaque: sealed for the caller (business and user) it was issued to, so it shows nothing and works for no one else; the same position may read differently each time.',
      },
      has_more: { type: 'boolean', description: 'Whether more events are there already.' },
    }),
  },
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
