import { taskQueuesOf } from './task-queues';

/*
 * Workflow generations (docs/design.md, "Upgrading runs from before Worker Versioning"). A generation is a
 * break in workflow code that no deploy can carry: runs of the earlier one may not replay on the new code.
 * The database records the generation its runs were last upgraded to (`run_upgrades`); the first start of
 * a newer generation ends the runs the earlier one left open and has the reconciler start them again from
 * the rows. Generation 2 dropped the retired workflow types and the `patched()` branches; from then on a
 * workflow change ships as a new Worker Deployment Version instead.
 */

export const RUN_GENERATION = 2;

/**
 * The workflow types whose runs of an earlier generation end at the upgrade: those that no longer exist,
 * and those whose code lost the branches their older histories took. The other types' code is unchanged,
 * and their runs go on.
 */
export const TYPES_ENDED_AT_UPGRADE = ['assignAgents', 'assignmentExpiry', 'rotation', 'routingFirstResponse', 'clientOwnership', 'sendMessage', 'processCrmLead'] as const;

/** What an operator reads on a run the upgrade ended (the Temporal UI's Terminated event): no data, only why and what follows. */
export const UPGRADE_TERMINATE_REASON =
  `Workflow generation ${RUN_GENERATION}: a run of an earlier build, whose history this build cannot replay, ended by the upgrade; ` +
  'the reconciler starts its clocks again from PostgreSQL (docs/operations.md, "Upgrading from a build before Worker Versioning")';

/** The visibility query that finds the open runs an upgrade ends: of those types, on the service's task queues, started before `cutoff`. */
export function runsEndedAtUpgradeQuery(baseTaskQueue: string, cutoff: Date): string {
  const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');
  const queues = Object.values(taskQueuesOf(baseTaskQueue));
  return `ExecutionStatus = 'Running' AND StartTime < '${cutoff.toISOString()}' AND WorkflowType IN (${list(TYPES_ENDED_AT_UPGRADE)}) AND TaskQueue IN (${list(queues)})`;
}
