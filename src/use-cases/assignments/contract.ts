import { z } from 'zod';
import { ChangedBy, DateTime, ResourceId, uuid } from '../input/contract';

/*
 * The contract of assignments: the body of `POST /clients/{_id}/assign-agents` and the views of an
 * assignment. The parser (request.ts) keeps the interface document's checks 1-7, their order and
 * texts; a field this schema does not name is then refused (assign.ts). The OpenAPI document is
 * generated from these schemas.
 */

export const MAX_AGENTS_PER_REQUEST = 100;
export const MAX_NOTES_LENGTH = 2000;

export const AssignAgentsRequest = z
  .strictObject({
    agents: z
      .array(
        z.strictObject({
          agent: z.string().min(1).meta({ description: 'Id of one of the caller\'s agents in this business.', examples: ['a1'] }),
          dt_until: z.string().nullish().default('2143-06-23').meta({
            description:
              'When the assignment expires: an ISO 8601 date (00:00:00 UTC of that day) or date-time (UTC when it has no offset), in the future. ' +
              'Absent or null: `2143-06-23`.',
            examples: ['2030-01-01', '2030-01-01T09:30:00+02:00'],
          }),
        }),
      )
      .min(1)
      .max(MAX_AGENTS_PER_REQUEST)
      .meta({ description: 'At least one, at most 100, each agent once. Re-assigning an active agent replaces its `dt_until` and `ds_notes`.' }),
    ds_notes: z.string().max(MAX_NOTES_LENGTH).nullish().meta({ description: 'Free-text notes, kept on each assignment in the database only (never in Temporal).', examples: ['new lead'] }),
  })
  .meta({
    id: 'AssignAgentsRequest',
    description: 'All or nothing: a rejected request assigns nothing. A field not described here is a 400 `Unknown field: {name}`, after the checks 1-7 of the description.',
  });

export type AssignAgentsBody = z.input<typeof AssignAgentsRequest>;

// The client's run (`client/{business}/{client}/{key}`); an assignment left untouched since before one run per client shows its per-pair run (`assignment/…`).
const workflowId = () => z.string().regex(/^(client|assignment)\//).meta({ examples: ['client/acme/c1/5b0c0a8e-2f1d-4c55-9a0e-6c3f2d1b7e44'] });

export const AssignAgentsResult = z
  .strictObject({
    client: ResourceId,
    ds_notes: z.string().nullable(),
    assignments: z
      .array(
        z.strictObject({
          agent: ResourceId,
          dt_until: DateTime,
          status: z.literal('active'),
          workflow_id: workflowId().meta({ description: 'The Temporal workflow that holds this assignment\'s clock and expires it: the client\'s run, one per client.' }),
        }),
      )
      .meta({ description: 'In request order.' }),
  })
  .meta({ id: 'AssignAgentsResult' });

export const Assignment = z
  .strictObject({
    agent: ResourceId,
    dt_until: DateTime,
    status: z.enum(['active', 'expired', 'unassigned']),
    ds_notes: z.string().nullable(),
    workflow_id: workflowId(),
    assigned_at: DateTime,
    updated_at: DateTime,
    ended_at: z.string().nullable().meta({ format: 'date-time', description: 'When it expired or was unassigned.' }),
    ended_by: ChangedBy.nullable().meta({
      description: 'Who ended it: `system`/`expiry` when it expired, `user`/`api` when its owner unassigned it, `operator`/`operator` when its workflow was canceled in the Temporal UI; null while active.',
    }),
    rotation: z.boolean().meta({ description: 'Made (or last re-assigned) by the client\'s rotation, for one period (`PUT …/clients/{_id}/rotation`); false for an assign-agents request\'s.' }),
    routed_by: z
      .strictObject({ policy: ResourceId, version: z.int().min(1), decision_id: uuid() })
      .nullable()
      .meta({ description: 'Made by lead routing (`POST …/clients/{_id}/route`): the policy, its version and the decision (`GET …/routing-decisions/{id}`); null for any other assignment.' }),
  })
  .meta({ id: 'Assignment' });

export const AssignmentList = z
  .strictObject({ client: ResourceId, assignments: z.array(Assignment).meta({ description: 'Oldest first.' }) })
  .meta({ id: 'AssignmentList' });

export const Unassignment = z
  .strictObject({
    client: ResourceId,
    agent: z.string(),
    dt_until: DateTime,
    status: z.literal('unassigned'),
    ended_at: DateTime,
    ended_by: ChangedBy.meta({ description: 'Always `{ "actor": "user", "reason": "api" }`: the caller unassigned it.' }),
    workflow_id: workflowId(),
  })
  .meta({ id: 'Unassignment' });

export const ASSIGNMENT_SCHEMAS = { requests: [AssignAgentsRequest], responses: [AssignAgentsResult, Assignment, AssignmentList, Unassignment] };

/** `GET /clients/{_id}/agents`' query (absent `status` is `active`). */
export const AssignmentListQuery = z.object({
  status: z
    .enum(['active', 'all'], { error: 'use active or all' })
    .default('active')
    .meta({ description: '`active`: the current assignments; `all`: also the expired and unassigned ones, for history.' }),
});
