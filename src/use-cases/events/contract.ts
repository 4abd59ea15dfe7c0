import { z } from 'zod';
import { EVENT_PATTERNS, EVENT_REASONS, type EventType } from '../../domain';
import { Assignment } from '../assignments/contract';
import { Conversation, ConversationNote } from '../conversations/contract';
import { DateTime, ResourceId, uuid } from '../input/contract';
import { RESOURCE_ID_PATTERN } from '../input/validation';
import { Message } from '../messages/contract';
import { NumberA2pRegistration } from '../numbers/contract';
import { Rotation } from '../rotation/contract';
import { RoutingDecision } from '../routing/contract';

/*
 * The contract of the event feed (`GET /events`) and of the webhooks that carry the same events: each
 * event's `data` is the resource as its own route shows it, extended with what the event adds, so the
 * two cannot drift apart. The OpenAPI document is generated from these schemas.
 */

const reason = z.enum(EVENT_REASONS).meta({
  description:
    'What made the change: `api` a request of the owner (HTTP or Nexus) — and, for a message, its sending that followed; ' +
    '`expiry` the assignment\'s `dt_until`; `operator` a cancellation in the Temporal UI; `rule` the client\'s rotation or a CRM lead\'s workflow; `carrier` a carrier\'s delivery receipt or a text the client sent; ' +
    '`client_deleted` / `agent_deleted` the owner deleting the client (its erasure) or an agent, which ended the assignment, canceled the message or stopped the rotation; ' +
    '`routing` lead routing ending an assignment whose first response was missed; `snooze` a conversation\'s snooze ending; `reply_clock` a conversation\'s answer coming due (`next_response_within`).',
});

/** An event's envelope around `data`. */
function event(id: string, types: readonly EventType[], data: z.ZodType, description: string) {
  return z
    .strictObject({
      id: uuid().meta({ description: 'The event\'s id; a webhook carries it as `webhook-id`, the same on every retry.' }),
      type: z.enum(types as [EventType, ...EventType[]]),
      created_at: DateTime.meta({ description: 'When the change was committed.' }),
      business: z.string().meta({ examples: ['acme'] }),
      data,
    })
    .meta({ id, description });
}

const AssignmentEventData = Assignment.extend({ client: ResourceId, reason }).meta({
  id: 'AssignmentEventData',
  description: 'The assignment as `GET /clients/{_id}/agents?status=all` shows it after the change, with its client and the reason.',
});
const MessageEventData = Message.extend({ reason }).meta({ id: 'MessageEventData', description: 'The message as `GET /messages/{_id}` shows it after the change, and the reason.' });
const RotationEventData = Rotation.extend({ reason }).meta({
  id: 'RotationEventData',
  description: 'The rotation as `GET /clients/{_id}/rotation` shows it after the change, and the reason (`api` a DELETE, `operator` a cancellation in the Temporal UI).',
});
const ReceivedMessageEventData = Message.extend({
  reason,
  assignments: z
    .array(
      z.strictObject({
        agent: ResourceId,
        dt_until: DateTime,
        rotation: z.boolean().meta({ description: 'Made by the client\'s rotation.' }),
        current_period: z.boolean().meta({ description: 'This agent holds the period of the client\'s rotation in progress now.' }),
      }),
    )
    .meta({ description: 'Who has the client at the instant the text came in: its active assignments whose `dt_until` is ahead, oldest first. Empty for a message to a bare phone.' }),
}).meta({ id: 'ReceivedMessageEventData', description: 'The inbound message as `GET /messages/{_id}` shows it, the reason (`carrier`), and the client\'s assignments in force when it came in.' });
const RoutingEventData = RoutingDecision.extend({
  reason,
  previous_agent: ResourceId.optional().meta({ description: '`routing.reassigned` only: the owner that did not answer in time.' }),
}).meta({
  id: 'RoutingEventData',
  description: 'The decision as `GET /routing-decisions/{id}` shows it, and the reason (`api` a route request, `rule` the queue assigning a waiting client or the first-response clock reassigning or escalating).',
});
const ClientEventData = z
  .strictObject({ client: ResourceId, deleted_at: DateTime, reason })
  .meta({ id: 'ClientEventData', description: 'The erased client\'s id, when it was erased, and the reason (`api`: its owner\'s DELETE).' });
const crm = z.enum(['hubspot', 'salesforce', 'pipedrive']);
const CrmOwnerSyncFailedEventData = z
  .strictObject({
    client: ResourceId,
    crm,
    record_id: z.string().meta({ description: 'The record\'s id in the CRM.' }),
    agent: z.string().nullable().meta({ description: 'The agent whose CRM owner was to be written.' }),
    crm_owner_id: z.string().nullable().meta({ description: 'That owner\'s id in the CRM; null when `agent_map` names none.' }),
    error: z.string().meta({ examples: ['HubSpot refused to write the contact owner (HTTP 403)', 'Agent a1 has no HubSpot owner in agent_map: the owner was not written back'] }),
    reason,
  })
  .meta({ id: 'CrmOwnerSyncFailedEventData', description: 'The lead whose owner could not be written back into its CRM, and why (our words and the CRM\'s status code).' });
const CrmOwnerConflictEventData = z
  .strictObject({
    client: ResourceId,
    crm,
    record_id: z.string(),
    agent: z.string().nullable().meta({ description: 'Our agent, whose owner we wrote.' }),
    crm_owner_id: z.string().nullable().meta({ description: 'The owner we wrote.' }),
    crm_agent: z.string().nullable().meta({ description: 'The agent `agent_map` gives the new owner; null when it names none.' }),
    crm_owner_id_now: z.string().nullable().meta({ description: 'The owner the CRM has now (null: none).' }),
    followed: z.boolean().meta({ description: 'Whether the assignment here moved to `crm_agent`.' }),
    reason,
  })
  .meta({
    id: 'CrmOwnerConflictEventData',
    description: 'A person changed the lead\'s owner in the CRM after ours was written (not our own write echoing back): both owners, and whether the assignment here followed (`follow_crm_owner`).',
  });
const ConversationEventData = Conversation.extend({ reason }).meta({
  id: 'ConversationEventData',
  description:
    'The conversation as `GET /conversations/{_id}` shows it after the change (`unread` null: it is an agent\'s), and the reason: `carrier` a text of the client opened it, `api` its owner, `snooze` its snooze ended, `reply_clock` its answer came due.',
});
const ConversationNoteEventData = ConversationNote.extend({ client: ResourceId, reason }).meta({ id: 'ConversationNoteEventData', description: 'The note, its client, and the reason (`api`).' });

const NumberRegistrationEventData = z
  .strictObject({
    business: z.string(),
    number: z.string().meta({ examples: ['+14155550100'] }),
    registration: NumberA2pRegistration,
    previous: NumberA2pRegistration.nullable().meta({ description: 'As it was last read; null for the number\'s first reading.' }),
    reason,
  })
  .meta({
    id: 'NumberRegistrationEventData',
    description: 'A number of the business whose A2P registration (10DLC brand and campaign, toll-free verification) changed, as a refresh read it from its carrier (reason `carrier`): `registration` as it is now, `previous` as it was (null for its first reading); sent to each user of the business.',
  });

const MESSAGE_TYPES: EventType[] = ['message.scheduled', 'message.sending', 'message.sent', 'message.delivered', 'message.read', 'message.undelivered', 'message.failed', 'message.canceled', 'message.suppressed'];

export const EVENTS = [
  event('AssignmentEvent', ['assignment.created', 'assignment.updated', 'assignment.expired', 'assignment.unassigned'], AssignmentEventData, 'A change of an assignment.'),
  event('MessageEvent', MESSAGE_TYPES, MessageEventData, 'A change of a message.'),
  event('ReceivedMessageEvent', ['message.received'], ReceivedMessageEventData, 'A text the client sent, matched to the latest message to its number that the carrier accepted.'),
  event('RotationEvent', ['rotation.stopped'], RotationEventData, 'A rotation stopped.'),
  event(
    'RoutingEvent',
    ['routing.assigned', 'routing.queued', 'routing.reassigned', 'routing.escalated', 'routing.no_eligible_agent'],
    RoutingEventData,
    'A routing decision: a client assigned or queued, nobody eligible under a `reject` policy, a client moved to another member after a missed first response, or escalated (its owner keeps it).',
  ),
  event('ClientEvent', ['client.deleted'], ClientEventData, 'A client erased.'),
  event('CrmOwnerSyncFailedEvent', ['crm.owner_sync_failed'], CrmOwnerSyncFailedEventData, 'A lead\'s owner could not be written back into its CRM.'),
  event('CrmOwnerConflictEvent', ['crm.owner_conflict'], CrmOwnerConflictEventData, 'A person changed a lead\'s owner in its CRM.'),
  event(
    'ConversationEvent',
    ['conversation.opened', 'conversation.snoozed', 'conversation.reopened', 'conversation.closed', 'conversation.overdue'],
    ConversationEventData,
    'A conversation opened by a text of the client (its first, or one to a closed or snoozed conversation), snoozed, reopened (its snooze ended, or its owner reopened it), closed, or overdue (waiting past its routing policy\'s `next_response_within`: once per waiting period, `assignees` naming its holders).',
  ),
  event('ConversationNoteEvent', ['conversation.note_added'], ConversationNoteEventData, 'An internal note added to a conversation.'),
  event('NumberRegistrationEvent', ['number.registration_changed'], NumberRegistrationEventData, 'A business number\'s A2P registration changed (`can_send` says whether it may send now).'),
] as const;

export const Event = z.union(EVENTS).meta({ id: 'Event' });

export const EventPage = z
  .strictObject({
    events: z.array(Event).meta({ description: 'Oldest first, in commit order.' }),
    next_cursor: z.string().nullable().meta({
      description:
        'Pass as `after` to read on. On the last page too: keep it and ask again later. Null only when there are no events at all. ' +
        'Opaque: sealed for the caller (business and user) it was issued to, so it shows nothing and works for no one else; the same position may read differently each time.',
    }),
    has_more: z.boolean().meta({ description: 'Whether more events are there already.' }),
  })
  .meta({ id: 'EventPage' });

export const EVENT_SCHEMAS = { requests: [], responses: [...EVENTS, Event, EventPage] };

export const MAX_EVENTS_PAGE = 100;

/** `GET /events`' query. */
export const EventFeedQuery = z.object({
  after: z.string().max(100).optional().meta({ description: 'The `next_cursor` of a previous page of this caller (the same business and user); absent: from the first event.' }),
  type: z.enum(EVENT_PATTERNS).optional().meta({ description: 'Only this type, or `assignment.*` / `message.*` / `rotation.*` / `routing.*` / `client.*` / `number.*`.' }),
  client: z.string().regex(RESOURCE_ID_PATTERN, 'must be a client id').optional().meta({ description: 'Only events about this client; another user\'s id matches nothing.' }),
  limit: z.coerce.number().int().min(1).max(MAX_EVENTS_PAGE).default(50),
});
