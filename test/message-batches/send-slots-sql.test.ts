import { reserveSendSlots } from '../../src/db/sender-paces';
import { reserveSlots } from '../../src/domain/send-slots';
import { uniqueName } from '../support/helpers';
import { databaseForFile } from '../support/database';

/*
 * The reservation's upsert (src/db/sender-paces.ts) on PostgreSQL against reserveSlots: ahead of the
 * database's clock the result is exact; at its clock the first slot is "now" as the statement saw it.
 */

const db = databaseForFile();

const HOUR = 3_600_000;

test.each([
  ['no slot reserved yet', null],
  ['the next free slot an hour ago', -HOUR],
  ['the next free slot an hour ahead', HOUR],
] as const)('%s: the upsert reserves as reserveSlots does', async (_case, offset) => {
  const sender = uniqueName('+1555');
  const nextFreeAt = offset === null ? null : new Date(Math.round(Date.now() / 1000) * 1000 + offset);
  if (nextFreeAt) await db().senderPace.create({ data: { sender, nextSlotAt: nextFreeAt } });
  const before = Date.now();
  const first = await reserveSendSlots(db(), { sender, count: 25, perSecond: 10 });
  const after = Date.now();
  const stored = (await db().senderPace.findUniqueOrThrow({ where: { sender } })).nextSlotAt;
  const now = offset === HOUR ? new Date(before) : first;
  expect({ first, nextFreeAt: stored }).toEqual(reserveSlots({ nextFreeAt, now, count: 25, perSecond: 10 }));
  if (offset !== HOUR) {
    expect(first.getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(first.getTime()).toBeLessThanOrEqual(after + 5);
  }
});
