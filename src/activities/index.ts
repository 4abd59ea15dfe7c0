import { failOnRefusedData } from './refused-data';
import { createAssignmentActivities, type AssignmentActivityDeps } from './assignments';
import { createMessageActivities, type MessageActivityDeps } from './send-message';
import { createMessageBatchActivities, type MessageBatchActivityDeps } from './send-message-batch';
import { createReconcileActivities, type ReconcileDeps } from './reconcile';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';
import { createRotationActivities } from './rotation';
import { createCrmLeadActivities, type CrmLeadActivityDeps } from './crm-leads';

export type ActivityDeps = AssignmentActivityDeps & MessageActivityDeps & MessageBatchActivityDeps & WebhookActivityDeps & CrmLeadActivityDeps & Pick<ReconcileDeps, 'observeReconcilerRestart'>;

export function createActivities(deps: ActivityDeps) {
  return failOnRefusedData({
    ...createAssignmentActivities(deps),
    ...createMessageActivities(deps),
    ...createMessageBatchActivities(deps),
    ...createReconcileActivities(deps),
    ...createRotationActivities(deps),
    ...createWebhookActivities(deps),
    ...createCrmLeadActivities(deps),
  });
}
