import type { AssignmentExpiryWorkflow, RotationWorkflow, SendMessageWorkflow } from './definitions';
import { rotation } from './rotation';
import { sendMessage } from './send-message';
import { assignmentExpiry } from './assignment-expiry';

export { assignAgents } from './assign-agents';
export { assignmentExpiry };
export * from './send-message';

// Activities start the expiry workflow by name; its signature must stay the one they are typed with.
assignmentExpiry satisfies AssignmentExpiryWorkflow;
sendMessage satisfies SendMessageWorkflow;
rotation satisfies RotationWorkflow;
export { rotation };
export { reconcile } from './reconcile';
