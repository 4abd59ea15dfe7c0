import { createAssignmentActivities, type AssignmentActivityDeps } from './assignments';
import { createMessageActivities, type MessageActivityDeps } from './messages';

export type ActivityDeps = AssignmentActivityDeps & MessageActivityDeps;

export function createActivities(deps: ActivityDeps) {
  return { ...createAssignmentActivities(deps), ...createMessageActivities(deps) };
}
