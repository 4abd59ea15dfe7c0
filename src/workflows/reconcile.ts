import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { ReconcileInput, ReconcileResult } from '../domain';

const { reconcileOrphans } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute', maximumAttempts: 5 },
});

/**
 * Run by a Temporal Schedule every few minutes: gives each active assignment and unsent message whose
 * workflow an operator terminated its workflow again (see docs/operations.md, "The reconciler").
 */
export async function reconcile(input: ReconcileInput = {}): Promise<ReconcileResult> {
  return reconcileOrphans(input);
}
