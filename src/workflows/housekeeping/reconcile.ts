import type { ReconcileInput, ReconcileResult } from '../../domain';
import { scheduledActivity } from '../scheduled-activity';

const reconcileOrphans = scheduledActivity('reconcileOrphans', { startToCloseTimeout: '30 minutes', heartbeatTimeout: '2 minutes' });

/**
 * Run by a Temporal Schedule every few minutes: gives each active assignment and unsent message whose
 * workflow an operator terminated its workflow again (see docs/operations.md, "The reconciler").
 */
export async function reconcile(input: ReconcileInput = {}): Promise<ReconcileResult> {
  return reconcileOrphans(input);
}
