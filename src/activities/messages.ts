import type { MessageProvider } from './providers';
import type { Prisma } from '../db/prisma';

export interface MessageActivityDeps {
  prisma: Prisma;
  provider: MessageProvider;
}

export function createMessageActivities(_deps: MessageActivityDeps) {
  return {};
}
