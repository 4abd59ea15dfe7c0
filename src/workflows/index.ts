import type { ClientOwnershipWorkflow, ProcessCrmLeadWorkflow, DeliverWebhookWorkflow, RoutingQueueWorkflow, SendMessageBatchWorkflow, SendMessageWorkflow } from '../domain';
import { sendMessageBatch } from './messages/send-message-batch';
import { routingQueue } from './routing/routing-queue';
import { sendMessage } from './messages/send-message';
import { deliverWebhook } from './webhooks/deliver-webhook';
import { clientOwnership } from './assignments/client-ownership';
import { processCrmLead } from './integrations/process-crm-lead';

export { clientOwnership };
export * from './messages/send-message';
export { deliverWebhook };
export { sendMessageBatch };
export { sweepWebhookDeliveries } from './webhooks/sweep-webhook-deliveries';

// Activities and use cases start these workflows by name; their signatures must stay the ones they are typed with.
clientOwnership satisfies ClientOwnershipWorkflow;
sendMessage satisfies SendMessageWorkflow;
sendMessageBatch satisfies SendMessageBatchWorkflow;
deliverWebhook satisfies DeliverWebhookWorkflow;
processCrmLead satisfies ProcessCrmLeadWorkflow;
export { processCrmLead };
routingQueue satisfies RoutingQueueWorkflow;
export { routingQueue };
export { reconcile } from './housekeeping/reconcile';
export { housekeeping } from './housekeeping/housekeeping';
