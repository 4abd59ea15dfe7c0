import { failOnRefusedData } from './refused-data';
import { createAssignmentActivities, type AssignmentActivityDeps } from './assignments';
import { createMessageActivities, type MessageActivityDeps } from './messages';
import { createReconcileActivities } from './reconcile';
import { createRotationActivities } from './rotations';

export type ActivityDeps = AssignmentActivityDeps & MessageActivityDeps;

export function createActivities(deps: ActivityDeps) {
  return failOnRefusedData({ ...createAssignmentActivities(deps), ...createMessageActivities(deps), ...createReconcileActivities(deps), ...createRotationActivities(deps) });
}
