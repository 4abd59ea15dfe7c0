export { assignAgents } from './assign-agents';
export { assignmentExpiry } from './assignment-expiry';
export * from './send-message';
