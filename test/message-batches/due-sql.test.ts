import { randomUUID } from 'node:crypto';
import { claimBatchChunk, insertMessageBatch, nextDueInBatch } from '../../src/db/message-batches';
import { createPrisma, type Prisma } from '../../src/db/prisma';
import { messageDueAt, type DueFields } from '../../src/domain/message-due';
import { uniqueName } from '../support/helpers';
import { DUE_CASES } from './due-cases';

/*
 * The batch's statements that read a message's due time (src/db/message-due.ts), on PostgreSQL (no
 * Temporal), for every row of the rule's table: the next-due query gives messageDueAt, and a chunk claim
 * takes the message exactly from then on.
 */

let prisma: Prisma;
beforeAll(() => {
  prisma = createPrisma(process.env.TEST_DATABASE_URL!, 2);
});
afterAll(() => prisma.$disconnect());

/** A batch of its own holding one scheduled message with these times. */
async function batchOf(times: DueFields): Promise<string> {
  const scope = { business: uniqueName('due-sql'), ownerId: 'u1' };
  const client = await prisma.client.create({ data: { ...scope, id: 'c1' } });
  const id = randomUUID();
  const message = { id: randomUUID(), clientPk: client.pk, clientId: 'c1', phone: '+15550001111', name: null, text: 'hello', idempotencyKey: null, requestHash: null,
    encoding: 'GSM-7', segments: 1, sendWindow: null, sender: null, channel: 'sms', media: null, template: null, ...times };
  await insertMessageBatch(prisma, scope, { id, sendAt: times.sendAt, sendWindow: null, idempotencyKey: null, requestHash: null, total: 1, results: [] }, [message]);
  return id;
}

const claim = (batchId: string, chunk: number, dueBy: Date) => claimBatchChunk(prisma, { batchId, chunk, limit: 10, dueBy, provider: 'test' });

test.each(DUE_CASES)('%s: the next-due query and the chunk claim agree with messageDueAt', async (_name, times) => {
  const due = messageDueAt(times);
  const batchId = await batchOf(times);
  expect(await nextDueInBatch(prisma, batchId)).toEqual(due);
  expect((await claim(batchId, 0, new Date(due.getTime() - 1))).sending).toBe(0);
  expect((await claim(batchId, 1, due)).sending).toBe(1);
});
