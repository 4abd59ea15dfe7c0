/*
 * The domain's shared vocabulary: statuses, event types, workflow names and ids, signals and queries,
 * inputs and results, failure types, task queues. Workflow code, the database layer, config, the use
 * cases and the doors all speak it, so it imports nothing but `@temporalio/workflow` (for signal and
 * query definitions) and itself: it is safe in the workflow bundle (test/project/structure.test.ts).
 */
export * from './common';
export * from './assignments';
export * from './client-run';
export * from './messages';
export * from './channels';
export * from './message-batches';
export * from './search-attributes';
export * from './reconcile';
export * from './events';
export * from './rotations';
export * from './task-queues';
export * from './working-hours';
export * from './routing';
export * from './routing-choice';
export * from './crm';
export * from './run-generation';
