import { failOnRefusedData } from './refused-data';
import { createAssignmentActivities, type AssignmentActivityDeps } from './assignments';
import { createMessageActivities, type MessageActivityDeps } from './messages';

export type ActivityDeps = AssignmentActivityDeps & MessageActivityDeps;

export function createActivities(deps: ActivityDeps) {
  return failOnRefusedData({ ...createAssignmentActivities(deps), ...createMessageActivities(deps) });
}
