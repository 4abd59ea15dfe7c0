import { MESSAGE_STATUSES, type MessageStatus } from '../../src/domain/messages';

/* The cases both tests of the answerable rule run: the rule's (no database) and the query's. */

const ANSWERABLE: Partial<Record<MessageStatus, 'always' | 'once accepted'>> = { sent: 'always', delivered: 'always', read: 'always', sending: 'once accepted' };

export const ANSWERABLE_CASES: [MessageStatus, 'recorded' | 'not recorded', boolean][] = MESSAGE_STATUSES.flatMap((status) => [
  [status, 'recorded', ANSWERABLE[status] !== undefined] as [MessageStatus, 'recorded' | 'not recorded', boolean],
  [status, 'not recorded', ANSWERABLE[status] === 'always'] as [MessageStatus, 'recorded' | 'not recorded', boolean],
]);
