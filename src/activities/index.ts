import { failOnRefusedData } from './refused-data';
import { createAssignmentActivities, type AssignmentActivityDeps } from './assignments';
import { createMessageActivities, type MessageActivityDeps } from './messages/send-message';
import { createMessageBatchActivities, type MessageBatchActivityDeps } from './messages/send-message-batch';
import { createReconcileActivities, type ReconcileDeps } from './housekeeping/reconcile';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';
import { createRotationActivities } from './rotation';
import { createRoutingActivities } from './routing';
import { createCrmLeadActivities, type CrmLeadActivityDeps } from './integrations/crm-leads';
import { createClientClockActivities } from './assignments/client-clocks';
import { createConversationActivities } from './conversations';
import { createRegistrationActivities, type RegistrationActivityDeps } from './housekeeping/registrations';

export type ActivityDeps = AssignmentActivityDeps & MessageActivityDeps & MessageBatchActivityDeps & WebhookActivityDeps & CrmLeadActivityDeps & RegistrationActivityDeps & Pick<ReconcileDeps, 'observeReconcilerRestart' | 'reconcileBusinesses'>;

export function createActivities(deps: ActivityDeps) {
  const assignments = createAssignmentActivities(deps);
  const rotations = createRotationActivities(deps);
  const routing = createRoutingActivities(deps);
  const conversations = createConversationActivities(deps);
  return failOnRefusedData({
    ...assignments,
    ...createMessageActivities(deps),
    ...createMessageBatchActivities(deps),
    ...createReconcileActivities(deps),
    ...rotations,
    ...routing,
    ...conversations,
    ...createClientClockActivities({ ...assignments, ...rotations, ...routing, ...conversations }),
    ...createWebhookActivities(deps),
    ...createCrmLeadActivities(deps),
    ...createRegistrationActivities(deps),
  });
}
