import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createReconcileActivities } from '../../src/activities/housekeeping/reconcile';
import { insertAssignRequest } from '../../src/db/assign-requests';
import { AGENT_IDS, ASSIGNMENT_DT_UNTIL, assignAgentsWorkflowId, assignUpdate, CLIENT_WORKFLOW, clientWorkflowId, taskQueuesOf, type AssignUpdateInput, type ClientRunState, type ReconcileResult } from '../../src/domain';
import { uniqueName } from './helpers';
import type { TestStack } from './stack';

/* What the client's run tests of this folder share: a business of their own, the feed, the run as an operator sees it. */

export const secondsFromNow = (s: number) => new Date(Date.now() + s * 1000).toISOString();

/** The API of one business of the suite's stack: each test's rows, runs and reconciler passes stay its own. */
export function tenantApi(stack: Pick<TestStack, 'api'>, token: string, business: string) {
  return async (method: string, path: string, body?: unknown) => stack.api(method, `//ext/v2/${business}${path}`, { token, ...(body !== undefined && { body }) });
}

export type TenantApi = ReturnType<typeof tenantApi>;

/** A business of its own for the user of `token`, with client c1 and the agents; the client's run id. */
export async function tenantWith(stack: Pick<TestStack, 'api' | 'prisma'>, token: string, ...agents: string[]) {
  const business = uniqueName('upgrade');
  const api = tenantApi(stack, token, business);
  expect((await api('POST', '/clients', { _id: 'c1' })).status).toBe(201);
  for (const agent of agents) expect((await api('POST', '/agents', { _id: agent })).status).toBe(201);
  const client = await stack.prisma.client.findFirstOrThrow({ where: { business, id: 'c1' } });
  return { business, api, clientPk: client.pk, clientRunId: clientWorkflowId({ business, clientId: 'c1', clientPk: client.pk }) };
}

/**
 * An assign-agents request sent to the client's run as it is, past the API's checks (an older API, a
 * direct update): its `assign_requests` row, then the update with start. Resolves to the answer, or to the
 * update's failure.
 */
export async function assignPastTheApi(stack: Pick<TestStack, 'prisma' | 'temporal' | 'taskQueue' | 'business'>, ownerId: string, clientId: string, agents: AssignUpdateInput['agents']): Promise<unknown> {
  const client = await stack.prisma.client.findFirstOrThrow({ where: { business: stack.business, id: clientId } });
  const requestKey = assignAgentsWorkflowId({ business: stack.business, clientId, requestId: randomUUID() });
  await insertAssignRequest(stack.prisma, requestKey, { business: stack.business, ownerId }, null);
  const keys = { business: stack.business, clientId, clientPk: client.pk };
  const startWorkflowOperation = new WithStartWorkflowOperation(CLIENT_WORKFLOW, {
    workflowId: clientWorkflowId(keys),
    taskQueue: taskQueuesOf(stack.taskQueue).assign,
    args: [keys],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return stack.temporal.workflow.executeUpdateWithStart(assignUpdate, { args: [{ requestKey, agents }], startWorkflowOperation }).catch((error: unknown) => error);
}

/** Every event of the feed for `query` (e.g. `type=assignment.expired&client=c1`), oldest first, all pages. */
export async function feed(api: TenantApi, query: string): Promise<any[]> {
  const events: any[] = [];
  for (let after: string | undefined; ; ) {
    const res = await api('GET', `/events?limit=100&${query}${after ? `&after=${encodeURIComponent(after)}` : ''}`);
    expect(res.status).toBe(200);
    events.push(...res.body.events);
    if (!res.body.has_more) return events;
    after = res.body.next_cursor;
  }
}

/** One reconciler pass over one business, as the housekeeping run makes it, without its minute of grace. */
export async function reconcilePass(stack: TestStack, business: string, full: boolean): Promise<ReconcileResult> {
  const reconciler = createReconcileActivities({ prisma: stack.prisma, temporal: stack.temporal, taskQueue: stack.taskQueue });
  return (await new MockActivityEnvironment().run(reconciler.reconcileOrphans, { graceMs: 0, business, full })) as ReconcileResult;
}

/** What an operator sees of the open run under `workflowId`: its state, current details and search attributes. */
export async function runAsShown(stack: TestStack, workflowId: string) {
  const handle = stack.temporal.workflow.getHandle(workflowId);
  const described = await handle.describe();
  const state = await handle.query<ClientRunState>('state');
  const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return {
    runId: described.runId,
    status: described.status.name,
    state,
    details: String(metadata.currentDetails ?? ''),
    agentIds: (described.typedSearchAttributes.get(AGENT_IDS) as string[] | undefined) ?? [],
    dtUntil: described.typedSearchAttributes.get(ASSIGNMENT_DT_UNTIL)?.toISOString(),
  };
}
