import type { ApiPart } from '../components';
import { BAD_PATH_EXAMPLE, BODY_EXAMPLES, closedObject, inBusiness, json, NO_ROUTE_EXAMPLE, operation, PREFIX, problem, ref, routeResponses } from '../components';
import { clientIdParameter } from './clients';

const nullable = (schema: object) => ({ oneOf: [{ type: 'null' }, schema] });
const dateTime = (description: string) => ({ ...ref('schemas', 'DateTime'), description });
const position = { type: 'integer', minimum: 1, description: '1-based place in the agent list of the schedule it belongs to.' };
const of = { type: 'integer', minimum: 1, maximum: 100, description: 'How many agents that list has.' };

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

export const rotationApi: ApiPart = {
  tags: [
    {
      name: 'Rotation',
      description:
        'One rotation per client: periods of a fixed length counted from `starts_at`, each handed to the next agent of the list (cycling) as an ordinary ' +
        'assignment (`rotation: true` in `GET …/agents`) that expires at the end of its period. Boundaries come from the schedule, so periods are ' +
        'contiguous also across restarts.',
    },
  ],
  schemas: {
    RotationRequest: {
      type: 'object',
      required: ['agents', 'period'],
      description: 'A field not described here is a 400 `Unknown field: {name}`. A rejected request changes nothing.',
      properties: {
        agents: {
          type: 'array',
          minItems: 1,
          maxItems: 100,
          items: { type: 'string', minLength: 1 },
          description: 'The caller\'s agents in the order they take the periods; each once.',
          examples: [['a1', 'a2', 'a3']],
        },
        period: {
          type: ['string', 'integer'],
          description:
            'A fixed length between 1 minute and 10 years: an ISO 8601 duration in weeks, days, hours, minutes or seconds (`P7D`, `PT8H`), ' +
            'a length such as `8h`, `30m`, `2d` or `1h30m`, or seconds. Months and years are not a fixed length and are refused. A day is 24 hours.',
          examples: ['P7D', '8h'],
        },
        starts_at: {
          type: ['string', 'null'],
          description:
            'Where periods are counted from (ISO 8601; a date alone is 00:00 UTC), within 10 years of now. In the past it sets the phase: the period in progress ' +
            'now is the one the schedule gives. Absent: when the rotation takes over (now, or the end of the period in progress when replacing one).',
          examples: ['2026-11-23T09:00:00Z'],
        },
        ds_notes: { type: ['string', 'null'], maxLength: 2000, description: 'Notes put on each assignment the rotation makes; kept in the database only.' },
        apply: {
          type: ['string', 'null'],
          enum: ['now', null],
          description: 'Replacing a rotation: `now` cuts the period in progress short and starts the new rotation at once (or at its later `starts_at`).',
        },
      },
    },
    RotationPeriod: closedObject(['agent', 'position', 'of', 'from', 'until'], {
      agent: { ...ref('schemas', 'ResourceId'), description: 'Who has the period: its agent, or the next in the list when that one was skipped.' },
      position,
      of,
      from: dateTime('When the period (or the part of it this rotation covers) began.'),
      until: dateTime('When it ends: the assignment\'s `dt_until` and the next period\'s start.'),
    }),
    RotationNext: closedObject(['agent', 'position', 'of', 'from'], {
      agent: { ...ref('schemas', 'ResourceId'), description: 'Whose the next period is by the schedule (if that agent is gone by then, the next in the list takes it).' },
      position,
      of,
      from: dateTime('When it starts; in the past only while no worker has handed it out yet.'),
    }),
    RotationReplacement: closedObject(['agents', 'period', 'period_ms', 'starts_at', 'ds_notes', 'from'], {
      agents: { type: 'array', items: ref('schemas', 'ResourceId') },
      period: { type: 'string' },
      period_ms: { type: 'integer' },
      starts_at: ref('schemas', 'DateTime'),
      ds_notes: { type: ['string', 'null'] },
      from: dateTime('When it takes over from the rotation in force.'),
    }),
    Rotation: {
      type: 'object',
      required: [
        'client', 'status', 'agents', 'period', 'period_ms', 'starts_at', 'ds_notes', 'current', 'next', 'next_change_at',
        'replacement', 'skipped', 'stopped_at', 'stopped_by', 'version', 'workflow_id',
      ],
      additionalProperties: false,
      properties: {
        client: ref('schemas', 'ResourceId'),
        status: { enum: ['active', 'stopped'], description: '`stopped` after a DELETE: no further period is handed out.' },
        agents: { type: 'array', items: ref('schemas', 'ResourceId'), description: 'The rotation in force, in order.' },
        period: { type: 'string', description: 'As it was given.' },
        period_ms: { type: 'integer', minimum: 1000 },
        starts_at: dateTime('Where its periods are counted from.'),
        ds_notes: { type: ['string', 'null'] },
        current: { ...nullable(ref('schemas', 'RotationPeriod')), description: 'The period in progress; null when none is (not started, stopped and run out, or nobody could take it).' },
        next: { ...nullable(ref('schemas', 'RotationNext')), description: 'The next period by the schedule; null once stopped.' },
        next_change_at: { type: ['string', 'null'], format: 'date-time', description: 'When the next period starts; null once stopped.' },
        replacement: { ...nullable(ref('schemas', 'RotationReplacement')), description: 'A PUT waiting to take over at a later `starts_at`.' },
        skipped: {
          type: 'array',
          description: 'The latest periods (at most 50) not handed to their agent, and why: an agent deleted or no longer the caller\'s, or periods that ended before a step could hand them out (no worker ran, or the step came late; the reason says which).',
          items: closedObject(['from', 'until', 'agent', 'position', 'reason'], {
            from: ref('schemas', 'DateTime'),
            until: ref('schemas', 'DateTime'),
            agent: { type: ['string', 'null'] },
            position: { type: ['integer', 'null'], minimum: 1 },
            reason: { type: 'string', examples: ['Agent a2 not found or not authorized'] },
          }),
        },
        stopped_at: { type: ['string', 'null'], format: 'date-time' },
        stopped_by: { oneOf: [ref('schemas', 'ChangedBy'), { type: 'null' }], description: 'Who stopped it: `user`/`api` (its owner, DELETE …/rotation) or `operator`/`operator` (a run of an earlier build canceled in the Temporal UI; a client run canceled today stops no rotation); null while active.' },
        version: { type: 'integer', minimum: 1, description: 'Raised by every change.' },
        workflow_id: {
          type: 'string',
          pattern: '^(client|rotation)/',
          description:
            'The Temporal workflow that holds the rotation\'s clock: the client\'s run, `client/{business}/{client id}/{client key}` (one per client), ' +
            'or, until that run takes it over, a per-rotation run of an older build, `rotation/{business}/{client key}/{rotation key}`. Ids and keys only.',
        },
      },
    },
  },
  paths: {
    [`${PREFIX}/clients/{_id}/rotation`]: inBusiness({
      put: operation('putRotation', 'Rotation', 'Set or replace the client\'s rotation', {
        description:
          'Checks, in this order: the token (401); `agents` (400 `Missing or invalid agents array`); each agent id (400 `Invalid agent data: missing agent ID`); ' +
          'their number and duplicates; `period`; `starts_at`; `ds_notes`; `apply`; the client (404); then each agent in order (400 `Agent {id} not found or not authorized`). ' +
          'A new rotation takes over now (or at `starts_at`). A replacement takes over at the end of the period in progress, or now with `"apply": "now"` ' +
          '(never before its `starts_at`), and starts with its first agent. A PUT stating the rotation in force changes nothing. ' +
          'The answer waits up to 5 seconds for the first period to be handed out.',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('schemas', 'RotationRequest'),
              example: { agents: ['a1', 'a2', 'a3'], period: 'P7D', starts_at: '2026-11-23T09:00:00Z', ds_notes: 'key account on-call' },
            },
          },
        },
        responses: routeResponses(true, {
          200: json('The rotation is replaced (or was already this one).', ref('schemas', 'Rotation'), { example: EXAMPLE }),
          201: json('The client had no rotation; this one is set.', ref('schemas', 'Rotation'), { example: EXAMPLE }),
          400: problem(400, 'The request is invalid, or an agent is not the caller\'s; nothing changed.', { ...VALIDATION_EXAMPLES, ...BODY_EXAMPLES, ...BAD_PATH_EXAMPLE }),
          404: problem(404, 'No such client of the caller in this business.', { clientNotFound: 'Client not found', ...NO_ROUTE_EXAMPLE }),
        }),
      }),
      get: operation('getRotation', 'Rotation', 'Show the client\'s rotation', {
        responses: routeResponses(false, {
          200: json('The rotation, active or stopped.', ref('schemas', 'Rotation'), { example: EXAMPLE }),
          400: problem(400, 'The path is not validly percent-encoded.', { ...BAD_PATH_EXAMPLE }),
          404: problem(404, 'No such client, or it never had a rotation.', { clientNotFound: 'Client not found', noRotation: 'No rotation on this client', ...NO_ROUTE_EXAMPLE }),
        }),
      }),
      delete: operation('stopRotation', 'Rotation', 'Stop the client\'s rotation', {
        description: 'No further period is handed out; the assignment of the period in progress runs to its `dt_until`. A later PUT starts a rotation again.',
        responses: routeResponses(true, {
          200: json('The rotation is stopped.', ref('schemas', 'Rotation'), { example: { ...EXAMPLE, status: 'stopped', next: null, next_change_at: null, stopped_at: '2026-12-01T10:00:00.000Z', stopped_by: { actor: 'user', reason: 'api' }, version: 2 } }),
          404: problem(404, 'No such client, or no active rotation on it.', {
            clientNotFound: 'Client not found',
            notActive: 'No active rotation on this client',
            ...NO_ROUTE_EXAMPLE,
          }),
        }),
      }),
    }, clientIdParameter),
  },
};
