import type { ClientOwnershipWorkflow, FirstResponseWorkflow, ProcessCrmLeadWorkflow, AssignAgentsWorkflow, AssignmentExpiryWorkflow, DeliverWebhookWorkflow, RotationWorkflow, RoutingQueueWorkflow, SendMessageBatchWorkflow, SendMessageWorkflow } from '../domain';
import { sendMessageBatch } from './messages/send-message-batch';
import { rotation } from './rotation/rotation';
import { routingQueue } from './routing/routing-queue';
import { routingFirstResponse } from './routing/routing-first-response';
import { sendMessage } from './messages/send-message';
import { assignmentExpiry } from './assignments/assignment-expiry';
import { deliverWebhook } from './webhooks/deliver-webhook';
import { assignAgents } from './assignments/assign-agents';
import { clientOwnership } from './assignments/client-ownership';
import { processCrmLead } from './integrations/process-crm-lead';

export { clientOwnership };
// The per-request, per-pair, per-decision and per-rotation runs of an older build (assignAgents, assignmentExpiry,
// routingFirstResponse, rotation): still registered, for the runs in flight when a worker is upgraded.
export { assignAgents };
export { assignmentExpiry };
export * from './messages/send-message';
export { deliverWebhook };
export { sendMessageBatch };
export { sweepWebhookDeliveries } from './webhooks/sweep-webhook-deliveries';

// Activities and use cases start these workflows by name; their signatures must stay the ones they are typed with.
clientOwnership satisfies ClientOwnershipWorkflow;
assignAgents satisfies AssignAgentsWorkflow;
assignmentExpiry satisfies AssignmentExpiryWorkflow;
sendMessage satisfies SendMessageWorkflow;
sendMessageBatch satisfies SendMessageBatchWorkflow;
deliverWebhook satisfies DeliverWebhookWorkflow;
rotation satisfies RotationWorkflow;
processCrmLead satisfies ProcessCrmLeadWorkflow;
export { processCrmLead };
export { rotation };
routingQueue satisfies RoutingQueueWorkflow;
export { routingQueue };
routingFirstResponse satisfies FirstResponseWorkflow;
export { routingFirstResponse };
export { reconcile } from './housekeeping/reconcile';
export { housekeeping } from './housekeeping/housekeeping';
