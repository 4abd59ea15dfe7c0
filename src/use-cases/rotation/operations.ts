import { BAD_PATH_EXAMPLE, badBody, notFound, operations } from '../input/operation-docs';
import { Rotation, RotationRequest } from './contract';

/* What the document says of a client's rotation (src/use-cases/input/operation-docs.ts). */

export const ROTATION_TAG =
  'One rotation per client: periods of a fixed length counted from `starts_at`, each handed to the next agent of the list (cycling) as an ordinary ' +
  'assignment (`rotation: true` in `GET …/agents`) that expires at the end of its period. Boundaries come from the schedule, so periods are ' +
  'contiguous also across restarts.';

const EXAMPLE = {
  client: 'c1',
  status: 'active',
  agents: ['a1', 'a2', 'a3'],
  period: 'P7D',
  period_ms: 604800000,
  starts_at: '2026-11-23T09:00:00.000Z',
  ds_notes: 'key account on-call',
  current: { agent: 'a2', position: 2, of: 3, from: '2026-11-30T09:00:00.000Z', until: '2026-12-07T09:00:00.000Z' },
  next: { agent: 'a3', position: 3, of: 3, from: '2026-12-07T09:00:00.000Z' },
  next_change_at: '2026-12-07T09:00:00.000Z',
  replacement: null,
  skipped: [],
  stopped_at: null,
  stopped_by: null,
  version: 1,
  workflow_id: 'client/acme/c1/5b0c0a8e-2f1d-4c55-9a0e-6c3f2d1b7e44',
};

const VALIDATION_EXAMPLES = {
  missingAgents: 'Missing or invalid agents array',
  missingAgentId: 'Invalid agent data: missing agent ID',
  agentNotAuthorized: 'Agent a9 not found or not authorized',
  tooMany: 'Too many agents: at most 100 per rotation',
  duplicate: 'Duplicate agent a1 in agents array',
  unreadablePeriod: 'Invalid period: must be an ISO 8601 duration such as P7D or PT8H, or a length such as 8h, 30m or 2d',
  calendarPeriod: 'Invalid period: must be a fixed length (weeks, days, hours, minutes, seconds), not months or years',
  periodRange: 'Invalid period: must be between 1 minute and 10 years',
  invalidStartsAt: 'Invalid starts_at: must be an ISO 8601 date or date-time',
  farStartsAt: 'Invalid starts_at: must be within 10 years of now',
  invalidNotes: 'Invalid ds_notes: must be a string of at most 2000 characters',
  invalidApply: 'Invalid apply: must be "now" or absent',
};

export const ROTATION_OPERATIONS = operations({
  putRotation: {
    summary: 'Set or replace the client\'s rotation',
    description:
      'Checks, in this order: the token (401); `agents` (400 `Missing or invalid agents array`); each agent id (400 `Invalid agent data: missing agent ID`); ' +
      'their number and duplicates; `period`; `starts_at`; `ds_notes`; `apply`; the client (404); then each agent in order (400 `Agent {id} not found or not authorized`). ' +
      'A new rotation takes over now (or at `starts_at`). A replacement takes over at the end of the period in progress, or now with `"apply": "now"` ' +
      '(never before its `starts_at`), and starts with its first agent. A PUT stating the rotation in force changes nothing. ' +
      'The answer waits up to 5 seconds for the first period to be handed out.',
    body: { schema: RotationRequest, example: { agents: ['a1', 'a2', 'a3'], period: 'P7D', starts_at: '2026-11-23T09:00:00Z', ds_notes: 'key account on-call' } },
    responses: {
      200: { description: 'The rotation is replaced (or was already this one).', schema: Rotation, example: EXAMPLE },
      201: { description: 'The client had no rotation; this one is set.', schema: Rotation, example: EXAMPLE },
      400: badBody('The request is invalid, or an agent is not the caller\'s; nothing changed.', VALIDATION_EXAMPLES),
      404: notFound('No such client of the caller in this business.', { clientNotFound: 'Client not found' }),
    },
  },
  getRotation: {
    summary: 'Show the client\'s rotation',
    responses: {
      200: { description: 'The rotation, active or stopped.', schema: Rotation, example: EXAMPLE },
      400: { description: 'The path is not validly percent-encoded.', examples: BAD_PATH_EXAMPLE },
      404: notFound('No such client, or it never had a rotation.', { clientNotFound: 'Client not found', noRotation: 'No rotation on this client' }),
    },
  },
  stopRotation: {
    summary: 'Stop the client\'s rotation',
    description: 'No further period is handed out; the assignment of the period in progress runs to its `dt_until`. A later PUT starts a rotation again.',
    responses: {
      200: {
        description: 'The rotation is stopped.',
        schema: Rotation,
        example: { ...EXAMPLE, status: 'stopped', next: null, next_change_at: null, stopped_at: '2026-12-01T10:00:00.000Z', stopped_by: { actor: 'user', reason: 'api' }, version: 2 },
      },
      404: notFound('No such client, or no active rotation on it.', { clientNotFound: 'Client not found', notActive: 'No active rotation on this client' }),
    },
  },
});
