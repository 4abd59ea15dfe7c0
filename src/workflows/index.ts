import type { AssignmentExpiryWorkflow, SendMessageWorkflow } from './definitions';
import { sendMessage } from './send-message';
import { assignmentExpiry } from './assignment-expiry';

export { assignAgents } from './assign-agents';
export { assignmentExpiry };
export * from './send-message';

// Activities start the expiry workflow by name; its signature must stay the one they are typed with.
assignmentExpiry satisfies AssignmentExpiryWorkflow;
sendMessage satisfies SendMessageWorkflow;
export { reconcile } from './reconcile';
