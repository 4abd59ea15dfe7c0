import type { ClientOwnershipWorkflow, FirstResponseWorkflow, ProcessCrmLeadWorkflow, AssignAgentsWorkflow, AssignmentExpiryWorkflow, DeliverWebhookWorkflow, RotationWorkflow, RoutingQueueWorkflow, SendMessageBatchWorkflow, SendMessageWorkflow } from '../domain';
import { sendMessageBatch } from './send-message-batch';
import { rotation } from './rotation';
import { routingQueue } from './routing-queue';
import { routingFirstResponse } from './routing-first-response';
import { sendMessage } from './send-message';
import { assignmentExpiry } from './assignment-expiry';
import { deliverWebhook } from './deliver-webhook';
import { assignAgents } from './assign-agents';
import { clientOwnership } from './client-ownership';
import { processCrmLead } from './process-crm-lead';

export { clientOwnership };
// The per-request, per-pair, per-decision and per-rotation runs of an older build (assignAgents, assignmentExpiry,
// routingFirstResponse, rotation): still registered, for the runs in flight when a worker is upgraded.
export { assignAgents };
export { assignmentExpiry };
export * from './send-message';
export { deliverWebhook };
export { sendMessageBatch };
export { sweepWebhookDeliveries } from './sweep-webhook-deliveries';

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
export { reconcile } from './reconcile';
export { housekeeping } from './housekeeping';
