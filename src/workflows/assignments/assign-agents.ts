import { proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../../activities';
import type { AssignAgentsInput, AssignAgentsResult } from '../../domain';
import { attemptsWithin, RECORDING_STEP_OPTIONS } from '../retry-budget';

type Activities = ReturnType<typeof createActivities>;

const { recordAssignments } = proxyLocalActivities<Activities>(RECORDING_STEP_OPTIONS);

// The assignments are recorded by then: their timers are worth longer retries, and the reconciler
// restores any that a failure here leaves missing.
const { scheduleAssignmentExpiries } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '10 minutes',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: attemptsWithin(10 * 60_000, { initialMs: 200, coefficient: 2, maximumMs: 30_000 }),
  },
});

// Local activities: short database calls whose answer the HTTP caller is waiting for, run inside the
// workflow task instead of a round trip through the server for each.
/**
 * Validates ownership and records every assignment of one request in one transaction (all or
 * nothing), then starts or wakes the expiry workflow of each (client, agent) pair.
 */
export async function assignAgents(input: AssignAgentsInput): Promise<AssignAgentsResult> {
  // The key of the request's `assign_requests` row, where its user id and notes wait.
  const recorded = await recordAssignments({ ...input, requestKey: workflowInfo().workflowId });
  await scheduleAssignmentExpiries(recorded.map(({ workflowId, expiry }) => ({ workflowId, expiry })));
  return {
    client: input.clientId,
    assignments: recorded.map((r) => ({ agent: r.agentId, dt_until: r.dtUntil, status: 'active', workflow_id: r.workflowId })),
  };
}
