import { failOnRefusedData } from './refused-data';
import { createAssignmentActivities, type AssignmentActivityDeps } from './assignments';
import { createMessageActivities, type MessageActivityDeps } from './send-message';
import { createMessageBatchActivities, type MessageBatchActivityDeps } from './send-message-batch';
import { createReconcileActivities, type ReconcileDeps } from './reconcile';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';
import { createRotationActivities } from './rotation';
import { createRoutingActivities } from './routing';
import { createCrmLeadActivities, type CrmLeadActivityDeps } from './crm-leads';

export type ActivityDeps = AssignmentActivityDeps & MessageActivityDeps & MessageBatchActivityDeps & WebhookActivityDeps & CrmLeadActivityDeps & Pick<ReconcileDeps, 'observeReconcilerRestart'>;

export function createActivities(deps: ActivityDeps) {
  return failOnRefusedData({
    ...createAssignmentActivities(deps),
    ...createMessageActivities(deps),
    ...createMessageBatchActivities(deps),
    ...createReconcileActivities(deps),
    ...createRotationActivities(deps),
    ...createRoutingActivities(deps),
    ...createWebhookActivities(deps),
    ...createCrmLeadActivities(deps),
  });
}
