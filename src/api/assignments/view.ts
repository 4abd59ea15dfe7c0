/** The views live in src/views: the events written with each change carry them too. */
export { assignmentView } from '../../views/assignment';
