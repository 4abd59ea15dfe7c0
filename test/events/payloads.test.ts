import { erasedEventData } from '../../src/domain/event-erasure';
import type { NewEvent } from '../../src/domain/event-payloads';
import type { Assignment, Message, Rotation } from '../../src/generated/prisma/client';
import { assignmentEvent, clientDeletedEvent, conversationEvent, messageEvent, noteEvent, rotationEvent } from '../../src/views/event-payloads';
import type { ConversationRow } from '../../src/views/conversation';

/* Each kind of event's data as a rule (src/views/event-payloads.ts) and what an erasure leaves of it: rows in hand, no database. */

const T0 = new Date('2030-01-01T00:00:00.000Z');
const T1 = new Date('2030-01-02T00:00:00.000Z');
const OWNER = { business: 'acme', ownerId: 'u1' };

const assignment = {
  id: 'as1', clientPk: 'pk-c1', agentPk: 'pk-a1', dtUntil: T1, status: 'active', notes: 'vip', workflowId: 'client/acme/c1/pk-c1',
  createdAt: T0, updatedAt: T0, endedAt: null, endedBy: null, rotation: false, routedBy: null, revision: 0, activeSlot: true,
  agent: { id: 'a1' }, client: { id: 'c1', ...OWNER },
} as unknown as Assignment & { agent: { id: string }; client: { id: string; business: string; ownerId: string } };

const message = {
  id: 'm1', ...OWNER, clientPk: 'pk-c1', client: { id: 'c1' }, status: 'sent', sendAt: T0, workflowId: 'message/acme/m1', messageType: 'text', phone: '+15550001',
  name: 'Ann', direction: 'outbound', sender: '+15559999', text: 'hi', attempts: 1, createdAt: T0, updatedAt: T0, media: null, template: null, price: null,
} as unknown as Message & { client: { id: string } | null };

const conversation = {
  id: 'cv1', ...OWNER, clientPk: 'pk-c1', clientId: 'c1', sender: '', status: 'open', waitingSince: T0, lastInboundAt: T0, lastOutboundAt: null,
  firstResponseAt: null, snoozedUntil: null, createdAt: T0, updatedAt: T1,
} as unknown as ConversationRow;

const rotation = {
  key: 'r1', clientPk: 'pk-c1', ...OWNER, status: 'stopped', agentIds: ['a1', 'a2'], period: 'P7D', periodMs: BigInt(7 * 86_400_000), startsAt: T0, effectiveAt: T0,
  notes: null, version: 2, pending: null, coveredUntil: T1, current: null, skipped: [], stoppedAt: T1, stoppedBy: 'api', workflowId: null, createdAt: T0, updatedAt: T1,
  client: { id: 'c1' },
} as unknown as Rotation & { client: { id: string } };

const envelope = (event: NewEvent) => ({ scope: event.scope, clientPk: event.clientPk, clientId: event.clientId, type: event.type, keys: Object.keys(event.data) });

test.each([
  [
    'an assignment event names its client first, then the item as GET /clients/{_id}/agents shows it, the reason last',
    assignmentEvent('assignment.created', assignment, 'api'),
    { scope: OWNER, clientPk: 'pk-c1', clientId: 'c1', type: 'assignment.created' },
    ['client', 'agent', 'dt_until', 'status', 'ds_notes', 'workflow_id', 'assigned_at', 'updated_at', 'ended_at', 'ended_by', 'rotation', 'routed_by', 'reason'],
    { client: 'c1', agent: 'a1', dt_until: T1.toISOString(), ds_notes: 'vip', reason: 'api' },
  ],
  [
    'client.deleted is the erased client\'s id and date, reason api',
    clientDeletedEvent({ pk: 'pk-c1', id: 'c1', ...OWNER, deletedAt: T1 }),
    { scope: OWNER, clientPk: 'pk-c1', clientId: 'c1', type: 'client.deleted' },
    ['client', 'deleted_at', 'reason'],
    { client: 'c1', deleted_at: T1.toISOString(), reason: 'api' },
  ],
  [
    'a message event is the message as GET /messages/{_id} shows it, the reason last',
    messageEvent('message.sent', message, 'carrier'),
    { scope: OWNER, clientPk: 'pk-c1', clientId: 'c1', type: 'message.sent' },
    expect.arrayContaining(['_id', 'status', 'client', 'from', 'to', 'text_message', 'reason']),
    { _id: 'm1', client: 'c1', from: '+15559999', to: '+15550001', reason: 'carrier' },
  ],
  [
    'a message to a bare phone is about no client',
    messageEvent('message.scheduled', { ...message, clientPk: null, client: null }, 'api'),
    { scope: OWNER, clientPk: null, clientId: null, type: 'message.scheduled' },
    expect.arrayContaining(['client', 'reason']),
    { client: null, reason: 'api' },
  ],
  [
    'a conversation event is the conversation without unread (an agent\'s), with its assignees',
    conversationEvent('conversation.opened', conversation, ['a1'], 'carrier'),
    { scope: OWNER, clientPk: 'pk-c1', clientId: 'c1', type: 'conversation.opened' },
    ['_id', 'client', 'sender', 'status', 'assignees', 'waiting_since', 'last_inbound_at', 'last_outbound_at', 'first_response_at', 'snoozed_until', 'unread', 'created_at', 'updated_at', 'reason'],
    { _id: 'cv1', sender: null, assignees: ['a1'], unread: null, reason: 'carrier' },
  ],
  [
    'a note event is the note, then its client, reason api',
    noteEvent(conversation, { id: 'n1', conversationId: 'cv1', agentId: 'a1', text: 'call back', createdAt: T0 }),
    { scope: OWNER, clientPk: 'pk-c1', clientId: 'c1', type: 'conversation.note_added' },
    ['_id', 'conversation', 'internal', 'agent', 'text', 'created_at', 'client', 'reason'],
    { _id: 'n1', internal: true, client: 'c1', reason: 'api' },
  ],
  [
    'a rotation event is the rotation as GET /clients/{_id}/rotation shows it, the reason last',
    rotationEvent('rotation.stopped', rotation, 'api'),
    { scope: OWNER, clientPk: 'pk-c1', clientId: 'c1', type: 'rotation.stopped' },
    expect.arrayContaining(['client', 'status', 'agents', 'current', 'next', 'stopped_by', 'workflow_id', 'reason']),
    { client: 'c1', status: 'stopped', agents: ['a1', 'a2'], current: null, next: null, stopped_at: T1.toISOString(), workflow_id: 'client/acme/c1/pk-c1', reason: 'api' },
  ],
] as const)('%s', (_name, event, about, keys, data) => {
  expect(envelope(event)).toEqual({ ...about, keys });
  expect(Object.keys(event.data).at(-1)).toBe('reason');
  expect(event.data).toMatchObject(data);
});

test.each([
  ['a message\'s phone, name and text', { client_phone: '+15550001', client_name: 'Ann', text_message: 'hi', status: 'sent' }, { client_phone: null, client_name: null, text_message: '', status: 'sent' }],
  ['a from or to holding the phone', { from: '+15559999', to: 'whatsapp:+15550001' }, { from: '+15559999', to: null }],
  ['notes and a note\'s text', { ds_notes: 'vip', text: 'call back', agent: 'a1' }, { ds_notes: null, text: '', agent: 'a1' }],
  ['fields already empty stay null', { client_name: null, text_message: null }, { client_name: null, text_message: null }],
  ['nested and listed data', { items: [{ client_phone: 'x', n: 1 }], inner: { client_name: 'Ann' } }, { items: [{ client_phone: null, n: 1 }], inner: { client_name: null } }],
])('an erasure clears %s', (_name, data, left) => {
  expect(erasedEventData(data, ['+15550001'])).toEqual(left);
});
