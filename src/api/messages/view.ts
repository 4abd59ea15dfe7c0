/** The views live in src/views: the events written with each change carry them too. */
export { acceptedView, messageView } from '../../views/message';
