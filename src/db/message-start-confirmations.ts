import { logger } from '../logger';
import { confirmMessageStarts } from './messages';
import type { Prisma } from './prisma';

/*
 * The confirmations of message starts of one API process, written together: the starts confirmed within
 * a few milliseconds share one UPDATE, off the request's path. A confirmation lost with the process
 * only costs the reconciler's next recent pass a look at that row's run.
 */

const FLUSH_AFTER_MS = 20;

export interface MessageStartConfirmations {
  confirm(messageId: string): void;
  /** Writes what is waiting (at shutdown). */
  flush(): Promise<void>;
}

export function createMessageStartConfirmations(prisma: Prisma): MessageStartConfirmations {
  let waiting: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = async () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (waiting.length === 0) return;
    const ids = waiting;
    waiting = [];
    try {
      await confirmMessageStarts(prisma, ids);
    } catch (error) {
      logger.warn({ event: 'messages.start_confirmations_lost', count: ids.length, err: error }, 'start confirmations not written; the reconciler checks those runs');
    }
  };
  return {
    confirm(messageId) {
      waiting.push(messageId);
      timer ??= setTimeout(() => void flush(), FLUSH_AFTER_MS).unref();
    },
    flush,
  };
}
