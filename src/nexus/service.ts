import type { Client as TemporalClient } from '@temporalio/client';
import type { Admissions } from '../starters/admission';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { WorkflowRunOperationHandler, type WorkflowHandle } from '@temporalio/nexus';
import { HandlerStartOperationResult, serviceHandler, type OperationHandler, type StartOperationContext } from 'nexus-rpc';
import { assignAgentsRequest, DEFAULT_ASSIGN_TIMEOUT_MS } from '../use-cases/assignments/assign';
import { listAssignments } from '../use-cases/assignments/list';
import { unassignAgentRequest } from '../use-cases/assignments/unassign';
import { routeClientRequest } from '../use-cases/routing/route';
import { sendMessageRequest, type AcceptDeps } from '../use-cases/messages/accept';
import { sendMessageBatchRequest } from '../use-cases/messages/accept-batch';
import { cancelIfScheduled, cancelMessage } from '../use-cases/messages/cancel';
import { finishedOutcome, runFailureOf } from '../use-cases/messages/outcome';
import { changedBy } from '../views/changed-by';
import type { DatabaseDeps } from '../use-cases/database';
import { logError } from '../logger';
import { startMessageWorkflowForOperation, type ScheduledMessage } from '../starters/send-message-workflow';
import {
  crmService,
  type AssignmentItem,
  type CancelMessageOutput,
  type RouteClientOutput,
  type SendMessageBatchOutput,
  type SendMessageInput,
  type SendMessageOutput,
  type UnassignAgentOutput,
} from './contract';
import { messageRunFailed, toNexusError } from './errors';
import { callerScope, fieldsOf, idField } from './scope';
import { refuseUnknownFields } from '../use-cases/input/known-fields';
import { messageIdOfToken } from './token';

export interface CrmServiceDeps extends DatabaseDeps {
  temporal: TemporalClient;
  taskQueue: string;
  admission?: Admissions;
  /** Marks each message whose workflow start succeeded (see AcceptDeps). */
  messageStarts?: AcceptDeps['messageStarts'];
  /** The longest a synchronous assignment waits for its workflow; the request's own deadline may be shorter. */
  assignTimeoutMs?: number;
  /** Errors that the answer does not show, such as why a stored message's workflow did not start. */
  log?: (error: unknown) => void;
  /** The configured carrier's sender: as for POST /messages, an opted-out number is refused. */
  carrier?: { sender: string };
  /** REQUIRE_BUSINESS_NUMBERS, as for POST /messages. */
  requireBusinessNumbers?: boolean;
  /** Each channel's rules, as for POST /messages. */
  sharedSenderChannels?: AcceptDeps['sharedSenderChannels'];
  templateApprovals?: AcceptDeps['templateApprovals'];
  /** A US number's A2P registration, as for POST /messages. */
  registrations?: AcceptDeps['registrations'];
  /** How a media URL's host is resolved at accept, as for POST /messages. */
  hostLookup?: AcceptDeps['hostLookup'];
}

/** Leaves the worker time to answer before the Nexus request's deadline. */
const DEADLINE_MARGIN_MS = 1000;

/** What the runs an operation starts carry as their request id (the API puts X-Request-Id there). */
const nexusRequestId = (ctx: StartOperationContext) => `nexus:${ctx.requestId}`;

/** Runs one operation with the use cases' errors turned into Nexus errors. */
function answer<I, O>(run: (ctx: StartOperationContext, fields: Record<string, unknown>) => Promise<O>) {
  return async (ctx: StartOperationContext, input: I): Promise<O> => {
    try {
      return await run(ctx, fieldsOf(input));
    } catch (error) {
      throw toNexusError(error);
    }
  };
}

/**
 * The CRM's Nexus service, registered on the worker. Each operation calls the use case behind its HTTP
 * route, so the checks, their order, the texts and all-or-nothing are the route's.
 */
export function crmServiceHandler(options: CrmServiceDeps) {
  const deps = { log: logError, ...options };
  const assignTimeoutMs = deps.assignTimeoutMs ?? DEFAULT_ASSIGN_TIMEOUT_MS;

  const sendMessage: OperationHandler<SendMessageInput, SendMessageOutput> = {
    start: async (ctx, input) => {
      try {
        const started = await acceptForOperation(deps, ctx, fieldsOf(input));
        if ('outcome' in started) {
          // A repeat of a message that failed fails as its run did, rather than answering with its outcome.
          if (started.outcome === 'failed' || started.outcome === 'undelivered') throw messageRunFailed(await runFailureOf(deps.prisma, started.messageId, started.outcome));
          return HandlerStartOperationResult.sync({ outcome: started.outcome });
        }
        return await new WorkflowRunOperationHandler<SendMessageInput, SendMessageOutput>(async () => started.handle).start(ctx, input);
      } catch (error) {
        throw toNexusError(error);
      }
    },
    // Canceling the operation is POST /messages/{_id}/cancel: a message not yet sent is canceled and its
    // workflow ends with `canceled`; one that has left is not stopped. Canceling the workflow instead
    // would leave its row `scheduled` for ever.
    cancel: async (_ctx, token) => {
      await cancelIfScheduled(deps, messageIdOfToken(token));
    },
  };

  return serviceHandler(crmService, {
    assignAgents: answer(async (ctx, fields) => {
      const scope = callerScope(fields);
      const clientId = idField(fields, 'client');
      const untilDeadline = ctx.requestDeadline ? ctx.requestDeadline.getTime() - Date.now() - DEADLINE_MARGIN_MS : Infinity;
      const timeoutMs = Math.max(DEADLINE_MARGIN_MS, Math.min(assignTimeoutMs, untilDeadline));
      // The rest is the route's body: a field it does not know is refused where the route refuses it.
      const { business: _b, user: _u, client: _c, ...body } = fields;
      // The request id is the same on each retry, which then waits for the run the first attempt started.
      const result = await assignAgentsRequest({ ...deps, assignTimeoutMs: timeoutMs }, scope, clientId, body, nexusRequestId(ctx), ctx.requestId);
      return { client: result.client, assignments: result.assignments };
    }),

    unassignAgent: answer(async (_ctx, fields) => {
      const scope = callerScope(fields);
      refuseUnknownFields(fields, { business: true, user: true, client: true, agent: true });
      const ended = await unassignAgentRequest(deps, scope, idField(fields, 'client'), idField(fields, 'agent'));
      return { ...ended, status: 'unassigned' } satisfies UnassignAgentOutput;
    }),

    getAssignments: answer(async (_ctx, fields) => {
      const scope = callerScope(fields);
      refuseUnknownFields(fields, { business: true, user: true, client: true, status: true });
      const listed = await listAssignments(deps.prisma, scope, idField(fields, 'client'), fields.status ?? undefined);
      return {
        client: listed.client,
        assignments: listed.assignments.map(({ ds_notes: _notes, ...item }) => item satisfies AssignmentItem),
      };
    }),

    sendMessage,

    routeClient: answer(async (ctx, fields) => {
      const scope = callerScope(fields);
      const { idempotency_key: key, business: _b, user: _u, client: _c, ...body } = fields;
      const idempotencyKey = key === undefined || key === null ? nexusRequestId(ctx) : typeof key === 'string' ? key : '';
      const routed = await routeClientRequest(deps, scope, idField(fields, 'client'), body, idempotencyKey);
      return routed.body satisfies RouteClientOutput;
    }),

    sendMessageBatch: answer(async (ctx, fields) => {
      const scope = callerScope(fields);
      const { idempotency_key: key, business: _b, user: _u, ...body } = fields;
      const idempotencyKey = key === undefined || key === null ? nexusRequestId(ctx) : typeof key === 'string' ? key : '';
      const { batch, results } = await sendMessageBatchRequest(deps, scope, body, idempotencyKey, nexusRequestId(ctx));
      return { batch_id: batch!.id, results } satisfies SendMessageBatchOutput;
    }),

    cancelMessage: answer(async (_ctx, fields) => {
      const scope = callerScope(fields);
      refuseUnknownFields(fields, { business: true, user: true, message: true });
      const message = await cancelMessage(deps, scope, idField(fields, 'message'));
      return {
        _id: message.id,
        status: 'canceled',
        send_at: message.sendAt.toISOString(),
        canceled_at: message.canceledAt!.toISOString(),
        canceled_by: changedBy(message.canceledBy),
        workflow_id: message.workflowId!,
      } satisfies CancelMessageOutput;
    }),
  });
}

type Accepted = { handle: WorkflowHandle<SendMessageOutput> } | { messageId: string; outcome: SendMessageOutput['outcome'] | 'failed' | 'undelivered' };

/**
 * Stores the message as POST /messages does, starting its workflow with this operation's completion
 * callback. A repeated key whose message is already on its way joins its workflow; one whose message
 * is done answers at once with how it ended.
 */
async function acceptForOperation(deps: CrmServiceDeps, ctx: StartOperationContext, fields: Record<string, unknown>): Promise<Accepted> {
  const scope = callerScope(fields);
  const { idempotency_key: key, business: _b, user: _u, ...body } = fields;
  let handle: WorkflowHandle<SendMessageOutput> | undefined;
  const start = async (message: ScheduledMessage) => {
    handle = await startMessageWorkflowForOperation(ctx, deps.taskQueue, message);
  };
  const idempotencyKey = key === undefined || key === null ? nexusRequestId(ctx) : typeof key === 'string' ? key : '';
  const { message } = await sendMessageRequest(deps, scope, body, idempotencyKey, nexusRequestId(ctx), start);
  if (handle) return { handle };

  const finished = async () => {
    const outcome = await finishedOutcome(deps.prisma, message.id);
    return outcome ? { messageId: message.id, outcome } : undefined;
  };
  const done = await finished();
  if (done) return done;
  try {
    // It is being sent: its workflow is running, and the start joins it (same id, callback attached).
    await start({ ...message, clientId: null });
    return { handle: handle! };
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  const ended = await finished();
  if (ended) return ended;
  throw new Error(`Message ${message.id} has an ended workflow but is not finished`);
}
