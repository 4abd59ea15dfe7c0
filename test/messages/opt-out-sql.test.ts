import { randomUUID } from 'node:crypto';
import { claimBatchChunk, insertMessageBatch } from '../../src/db/message-batches';
import { claimMessageForSending } from '../../src/db/messages/sending';
import { optedOutAmong } from '../../src/db/opt-outs';
import { createPrisma, type Prisma } from '../../src/db/prisma';
import { forbidsMessage } from '../../src/domain/opt-outs';
import type { Channel } from '../../src/domain/channels';
import { uniqueName } from '../support/helpers';
import { OPT_OUT_CASES, type OptOutCase, type World } from './opt-out-cases';

/*
 * The statements that ask whether an opt-out forbids a message, on PostgreSQL (no Temporal), for every
 * row of the rule's table: a due message's claim (suppressed or claimed), a batch's chunk claim, and the
 * accept's look-up (optedOutAmong) each agree with forbidsMessage.
 */

let prisma: Prisma;
beforeAll(() => {
  prisma = createPrisma(process.env.TEST_DATABASE_URL!, 2);
});
afterAll(() => prisma.$disconnect());

const digits = () => String(Math.floor(Math.random() * 1e9)).padStart(9, '0');
const worldOfItsOwn = (): World => ({
  phone: `+1${digits()}`,
  otherPhone: `+1${digits()}`,
  business: uniqueName('optout-sql'),
  otherBusiness: uniqueName('optout-sql'),
  sender: `+1${digits()}`,
  otherSender: `+1${digits()}`,
});

/** The record stored, and a batch of two scheduled messages as the case says, due now. */
async function stored(world: World, { record, message }: OptOutCase): Promise<{ batchId: string; single: string }> {
  await prisma.optOut.create({ data: { ...record, source: 'keyword', detail: 'STOP', optedOutAt: new Date() } });
  const scope = { business: world.business, ownerId: 'u1' };
  const client = await prisma.client.create({ data: { ...scope, id: 'c1' } });
  const row = () => ({ id: randomUUID(), clientPk: client.pk, clientId: 'c1', name: null, text: 'hello', sendAt: new Date(Date.now() - 1000), idempotencyKey: null, requestHash: null,
    encoding: 'GSM-7', segments: 1, sendWindow: null, deferredUntil: null, media: null, template: null, ...message, phone: message.phone! });
  const [single, inChunk] = [row(), row()];
  const batchId = randomUUID();
  await insertMessageBatch(prisma, scope, { id: batchId, sendAt: single.sendAt, sendWindow: null, idempotencyKey: null, requestHash: null, total: 2, results: [] }, [single, inChunk]);
  return { batchId, single: single.id };
}

test.each(OPT_OUT_CASES)('%s: the claims and the accept\'s look-up agree with forbidsMessage', async (_name, make) => {
  const world = worldOfItsOwn();
  const { record, message } = make(world);
  const forbids = forbidsMessage(record, { ...message, business: world.business });
  const { batchId, single } = await stored(world, { record, message });

  const claim = await claimMessageForSending(prisma, single);
  const chunk = await claimBatchChunk(prisma, { batchId, chunk: 0, limit: 10, dueBy: new Date(), provider: 'test' });
  const lookedUp = await optedOutAmong(prisma, world.business, message.sender, [message.phone!], message.channel as Channel);
  expect({ claim: claim?.status, chunk: { suppressed: chunk.suppressed, sending: chunk.sending }, lookedUp: lookedUp.size > 0 }).toEqual({
    claim: forbids ? 'suppressed' : 'claimed',
    chunk: forbids ? { suppressed: 1, sending: 0 } : { suppressed: 0, sending: 1 },
    lookedUp: forbids,
  });
});
