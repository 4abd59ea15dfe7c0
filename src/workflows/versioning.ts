import { makeContinueAsNewFunc, workflowInfo, type Workflow } from '@temporalio/workflow';

/*
 * Worker Versioning inside a run (docs/design.md, "Worker Versioning"): every run is pinned to the version
 * that started it; a run that continues as new starts the next one on its task queue's target version
 * (the current one, or the ramping one for the ids it draws), which is its own version until an operator
 * moves the deployment on.
 */

/** Whether a newer version has become this run's target since it started: a long run continues as new to move there. */
export function targetVersionChanged(): boolean {
  return workflowInfo().targetWorkerDeploymentVersionChanged ?? false;
}

/** Continues as new onto the target version (unversioned workers ignore the option). */
export function continueAsNewOnTarget<F extends Workflow>(...args: Parameters<F>): Promise<never> {
  return makeContinueAsNewFunc<F>({ initialVersioningBehavior: 'AUTO_UPGRADE' })(...args);
}
