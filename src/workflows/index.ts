import type { AssignmentExpiryWorkflow, DeliverWebhookWorkflow, RotationWorkflow, SendMessageWorkflow } from './definitions';
import { rotation } from './rotation';
import { sendMessage } from './send-message';
import { assignmentExpiry } from './assignment-expiry';
import { deliverWebhook } from './deliver-webhook';

export { assignAgents } from './assign-agents';
export { assignmentExpiry };
export * from './send-message';
export { deliverWebhook };
export { sweepWebhookDeliveries } from './sweep-webhooks';

// Activities start these workflows by name; their signatures must stay the ones they are typed with.
assignmentExpiry satisfies AssignmentExpiryWorkflow;
sendMessage satisfies SendMessageWorkflow;
deliverWebhook satisfies DeliverWebhookWorkflow;
rotation satisfies RotationWorkflow;
export { rotation };
export { reconcile } from './reconcile';
