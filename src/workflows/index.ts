import type { AssignAgentsWorkflow, AssignmentExpiryWorkflow, DeliverWebhookWorkflow, RotationWorkflow, SendMessageBatchWorkflow, SendMessageWorkflow } from '../domain';
import { sendMessageBatch } from './send-message-batch';
import { rotation } from './rotation';
import { sendMessage } from './send-message';
import { assignmentExpiry } from './assignment-expiry';
import { deliverWebhook } from './deliver-webhook';
import { assignAgents } from './assign-agents';

export { assignAgents };
export { assignmentExpiry };
export * from './send-message';
export { deliverWebhook };
export { sendMessageBatch };
export { sweepWebhookDeliveries } from './sweep-webhooks';

// Activities and use cases start these workflows by name; their signatures must stay the ones they are typed with.
assignAgents satisfies AssignAgentsWorkflow;
assignmentExpiry satisfies AssignmentExpiryWorkflow;
sendMessage satisfies SendMessageWorkflow;
sendMessageBatch satisfies SendMessageBatchWorkflow;
deliverWebhook satisfies DeliverWebhookWorkflow;
rotation satisfies RotationWorkflow;
export { rotation };
export { reconcile } from './reconcile';
export { housekeeping } from './housekeeping';
