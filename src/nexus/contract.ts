/*
 * The CRM's Nexus service contract: the one module a caller imports. It is safe in workflow code (it
 * imports only `nexus-rpc`), so a caller workflow builds its client from it:
 *
 *   const crm = createNexusServiceClient({ endpoint: 'crm', service: crmService });
 *   await crm.executeOperation('assignAgents', { business, user, client, agents: [{ agent }] });
 *
 * Inputs use the HTTP API's field names and rules; a field an operation does not know is refused
 * (`Unknown field: {name}`), as the API refuses it in a body. Outputs carry ids, dates and statuses only: notes,
 * names, phone numbers and texts stay in the CRM's database, out of the caller's workflow history.
 */
import { operation, service } from 'nexus-rpc';
import { CRM_SERVICE_NAME } from '../domain/nexus';

export { CRM_SERVICE_NAME };

/**
 * Who acts: the business (the `{businessname}` of the HTTP path) and the user (a token's `sub`). The
 * endpoint's allowed caller namespaces decide who may name them; see docs/nexus.md, "Who may call".
 */
/** Who ended or canceled something: `user` (the owner, through the API or Nexus), `operator` (the Temporal UI) or `system` (a date reached), with its event's reason. */
export interface ChangedBy {
  actor: 'user' | 'operator' | 'system';
  reason: 'api' | 'expiry' | 'operator' | 'rule' | 'client_deleted' | 'agent_deleted' | 'routing';
}

export interface CrmCaller {
  business: string;
  user: string;
}

export interface AssignAgentsInput extends CrmCaller {
  client: string;
  /** As `POST /clients/{client}/assign-agents`: `dt_until` is an ISO 8601 date or date-time, default 2143-06-23. */
  agents: { agent: string; dt_until?: string | null }[];
  ds_notes?: string | null;
}

export interface AssignAgentsOutput {
  client: string;
  assignments: { agent: string; dt_until: string; status: 'active'; workflow_id: string }[];
}

export interface UnassignAgentInput extends CrmCaller {
  client: string;
  agent: string;
}

export interface UnassignAgentOutput {
  client: string;
  agent: string;
  dt_until: string;
  status: 'unassigned';
  ended_at: string;
  /** Always `{ actor: 'user', reason: 'api' }`: the caller unassigned it. */
  ended_by: ChangedBy;
  workflow_id: string;
}

export interface GetAssignmentsInput extends CrmCaller {
  client: string;
  /** `active` (the default) or `all`, which adds expired and unassigned assignments. */
  status?: 'active' | 'all';
}

export interface AssignmentItem {
  agent: string;
  dt_until: string;
  status: 'active' | 'expired' | 'unassigned';
  workflow_id: string;
  assigned_at: string;
  updated_at: string;
  ended_at: string | null;
  /** Who ended it: `system`/`expiry`, `user`/`api` (the owner), `operator`/`operator`; null while active. */
  ended_by: ChangedBy | null;
  /** Made by the client's rotation (`PUT /clients/{_id}/rotation`) rather than by an assign-agents request. */
  rotation: boolean;
}

export interface GetAssignmentsOutput {
  client: string;
  assignments: AssignmentItem[];
}

export interface SendMessageInput extends CrmCaller {
  message_type: 'text';
  client?: string | null;
  client_phone?: string | null;
  client_name?: string | null;
  text_message: string;
  /** `0`, seconds, `90s` / `5m` / `2h` / `1d`, or an ISO 8601 duration. */
  delay?: string | number | null;
  /** As `POST /messages`: the instant it is due, ISO 8601 with its zone (`2030-01-01T09:00:00Z`); not with `delay`. */
  send_at?: string | null;
  /**
   * Quiet hours, as `POST /messages`: `from`/`to` are `HH:MM` wall-clock times (`from` inclusive, `to`
   * exclusive; `21:00`–`08:00` spans midnight) in `timezone`, an IANA zone, by default the client's. A
   * message due outside the window waits for it to open (`deferred_until`).
   */
  send_window?: { from: string; to: string; timezone?: string | null } | null;
  /** The caller's agent the message answers for: its first response to a routed client (docs/routing.md). */
  agent?: string | null;
  /**
   * As the HTTP `Idempotency-Key`. Without it the operation's own request id is the key, so the
   * retries of one operation never send twice.
   */
  idempotency_key?: string;
}

/** The operation completes when the message has left (`sent`), was refused (`failed`) or was canceled. */
export interface SendMessageOutput {
  /**
   * `delivered`/`read` when the carrier's receipt came before the run ended; `suppressed` when the recipient
   * opted out before it was due. A message that ends `failed` or `undelivered` fails the operation instead
   * (`messageFailureOf`); only runs started before that change answer with those two.
   */
  outcome: 'sent' | 'delivered' | 'read' | 'undelivered' | 'failed' | 'canceled' | 'suppressed';
}

export interface CancelMessageInput extends CrmCaller {
  /** The message's `_id`. */
  message: string;
}

export interface CancelMessageOutput {
  _id: string;
  status: 'canceled';
  send_at: string;
  canceled_at: string;
  /** Who canceled it: `user`/`api` (the caller) or, for one an operator had canceled already, `operator`/`operator`. */
  canceled_by: ChangedBy | null;
  workflow_id: string;
}

export interface SendMessageBatchInput extends CrmCaller {
  message_type: 'text';
  /** The text of every recipient without its own; `{{client_name}}` becomes the recipient's name. */
  text_message?: string | null;
  delay?: string | number | null;
  send_at?: string | null;
  send_window?: { from: string; to: string; timezone?: string | null } | null;
  /** 1 to 1,000, each checked as a `sendMessage` input would be. */
  recipients: { client?: string | null; client_phone?: string | null; client_name?: string | null; text_message?: string | null; agent?: string | null }[];
  /** As the HTTP `Idempotency-Key`. Without it the operation's own request id is the key. */
  idempotency_key?: string;
}

/** As the 202 of `POST /messages/batch`: one result per recipient, in request order (ids, statuses and problems only). */
export interface SendMessageBatchOutput {
  batch_id: string;
  results: (
    | { index: number; _id: string; status: 'scheduled'; send_at: string }
    | { index: number; status: 'rejected'; error: { type: string; status: number; detail: string } }
  )[];
}


export interface RouteClientInput extends CrmCaller {
  client: string;
  /** As `POST /clients/{client}/route`. */
  policy: string;
  notes?: string | null;
  /** As the HTTP `Idempotency-Key`. Without it the operation's own request id is the key. */
  idempotency_key?: string;
}

/** As `POST /clients/{client}/route`: assigned or already assigned (200 there; `other_holders` when others hold the client too), or queued (202 there). */
export type RouteClientOutput =
  | { decision_id: string; status: 'assigned' | 'already_assigned'; agent: string; dt_until: string; other_holders?: { agent: string; dt_until: string }[] }
  | { decision_id: string; status: 'queued'; position: number };

export const crmService = service(CRM_SERVICE_NAME, {
  /** Synchronous. Lead routing: the policy picks the agent, or the client waits in its queue; nobody eligible under `reject` is a `/problems/conflict`. */
  routeClient: operation<RouteClientInput, RouteClientOutput>(),
  /** Synchronous. All or nothing, as the HTTP route. */
  assignAgents: operation<AssignAgentsInput, AssignAgentsOutput>(),
  /** Synchronous. */
  unassignAgent: operation<UnassignAgentInput, UnassignAgentOutput>(),
  /** Synchronous. */
  getAssignments: operation<GetAssignmentsInput, GetAssignmentsOutput>(),
  /** Asynchronous: backed by the message's own workflow. Canceling the operation cancels the message if it has not left. */
  sendMessage: operation<SendMessageInput, SendMessageOutput>(),
  /**
   * Synchronous: answers once the batch is stored and its workflow started, as `POST /messages/batch`.
   * None accepted is a failed operation whose problem lists each recipient's problem (`results`).
   */
  sendMessageBatch: operation<SendMessageBatchInput, SendMessageBatchOutput>(),
  /** Synchronous. Canceling a canceled message answers the same; one that has left is a `/problems/conflict`. */
  cancelMessage: operation<CancelMessageInput, CancelMessageOutput>(),
});

/** The HTTP API's problem details, as an operation failure carries them. */
export interface CrmProblem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** What to do about it, where `detail` is a fixed text (`Invalid delay`). */
  hint?: string;
  /** sendMessageBatch with no recipient accepted: each recipient's problem. */
  results?: SendMessageBatchOutput['results'];
}

/**
 * The problem behind a failed operation, or undefined for any other error. A business rejection is a
 * non-retryable operation failure whose cause is an ApplicationFailure with `type` = the problem's type,
 * `message` = its detail and the whole problem as its first detail.
 */
export function crmProblemOf(error: unknown): CrmProblem | undefined {
  for (let cause = error; typeof cause === 'object' && cause !== null; cause = (cause as { cause?: unknown }).cause) {
    const details = (cause as { details?: unknown }).details;
    if (Array.isArray(details) && isProblem(details[0])) return details[0];
  }
  return undefined;
}

function isProblem(value: unknown): value is CrmProblem {
  const p = value as CrmProblem | undefined;
  return typeof p === 'object' && p !== null && typeof p.type === 'string' && typeof p.status === 'number' && typeof p.detail === 'string';
}

/** Why a sendMessage operation failed when its message failed or was undelivered (ids, codes and words only). */
export interface MessageFailure {
  messageId: string;
  outcome: 'failed' | 'undelivered';
  reason: string | null;
  code: string | null;
}

/** The message's failure behind a failed sendMessage operation (a `NexusOperationFailure`), if that is why it failed. */
export function messageFailureOf(error: unknown): MessageFailure | undefined {
  for (let cause = error; typeof cause === 'object' && cause !== null; cause = (cause as { cause?: unknown }).cause) {
    const { type, details } = cause as { type?: unknown; details?: unknown };
    if ((type === 'MessageFailed' || type === 'MessageUndelivered') && Array.isArray(details)) return details[0] as MessageFailure;
  }
  return undefined;
}
