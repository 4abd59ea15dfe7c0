import { MockActivityEnvironment } from '@temporalio/testing';
import { createRegistrationActivities } from '../../src/activities/housekeeping/registrations';
import { numberCarriers } from '../../src/carriers/numbers';
import { REGISTRATION_REFRESH_EVERY_MS, REGISTRATION_REFRESH_LIMIT } from '../../src/domain';
import { createTwilioCarrier } from '../../src/carriers/twilio';
import { registerNumber } from '../../src/db/business-numbers';
import { createPrisma, type Prisma } from '../../src/db/prisma';
import { Conflict, NotFound } from '../../src/use-cases/errors';
import { numberRegistrations, type RegistrationSettings } from '../../src/use-cases/numbers/registration';
import { startFakeTwilio, type FakeTwilio } from '../support/fake-twilio';
import { logger } from '../../src/logger';

/*
 * A number's A2P registration as the use cases keep it, on PostgreSQL (no Temporal): read from the fake
 * Twilio through the SDK, stored with when it was read, a change sent as `number.registration_changed`,
 * the gate a send passes (enforced or a warning), the scheduled refresh's choice, and a registration
 * refusal's immediate read.
 */

const prefix = `+1628${String(100 + Math.floor(Math.random() * 899))}`;
const SHARED = `${prefix}1000`;
const NUMBER = `${prefix}1001`;
const OTHER = `${prefix}1002`;
const business = `reg-${Math.random().toString(36).slice(2, 10)}`;
const ENFORCED: RegistrationSettings = { required: true, warnOnly: [] };

let fake: FakeTwilio;
let prisma: Prisma;

const carriersOf = () => {
  const carrier = createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, from: SHARED, apiUrl: fake.url });
  return numberCarriers(carrier, { ofBusiness: async () => null, holder: async () => null }, () => carrier);
};
const eventsOf = (number: string) =>
  prisma.event.findMany({ where: { business, type: 'number.registration_changed' }, orderBy: { seq: 'asc' } }).then((rows) => rows.filter((row) => (row.data as { number: string }).number === number));

beforeAll(async () => {
  fake = await startFakeTwilio({ from: [SHARED, NUMBER, OTHER] });
  prisma = createPrisma(process.env.TEST_DATABASE_URL!, 2);
  for (const number of [NUMBER, OTHER]) await registerNumber(prisma, { business, number, carrier: 'twilio', messagingServiceSid: null });
  // Two users of the business: each gets the event.
  for (const ownerId of ['user-a', 'user-b']) await prisma.client.create({ data: { business, ownerId, id: 'c1' } });
});
afterAll(async () => {
  await prisma?.$disconnect();
  await fake?.stop();
});

test('a refresh stores the reading; one that changes nothing moves read_at only; a change is number.registration_changed for each user of the business', async () => {
  const registrations = numberRegistrations(prisma, carriersOf(), ENFORCED);
  const first = await registrations.refresh(business, NUMBER);
  expect(first).toMatchObject({ number: NUMBER, carrier: 'twilio', kind: '10dlc', brandStatus: 'approved', campaignStatus: 'approved', campaignUseCase: 'CUSTOMER_CARE', tollFreeStatus: null });
  const firstEvents = await eventsOf(NUMBER);
  expect(firstEvents.map((e) => e.ownerId)).toEqual(['user-a', 'user-b']);

  const again = await registrations.refresh(business, NUMBER);
  expect(again.readAt.getTime()).toBeGreaterThanOrEqual(first.readAt.getTime());
  expect(again.changedAt).toEqual(first.changedAt);
  expect(await eventsOf(NUMBER)).toHaveLength(2);

  fake.api.registrations.set(NUMBER, 'pending');
  const changed = await registrations.refresh(business, NUMBER);
  expect(changed.campaignStatus).toBe('pending');
  expect(changed.changedAt.getTime()).toBeGreaterThanOrEqual(again.readAt.getTime());
  const events = await eventsOf(NUMBER);
  expect(events).toHaveLength(4);
  expect(events.at(-1)!.data).toMatchObject({
    business,
    number: NUMBER,
    registration: { kind: '10dlc', campaign: { status: 'pending', use_case: 'CUSTOMER_CARE' }, can_send: false, reason: `Sender ${NUMBER} is not in an approved 10DLC campaign (pending)` },
    previous: { campaign: { status: 'approved' }, can_send: true, reason: null },
    reason: 'carrier',
  });
  fake.api.registrations.set(NUMBER, 'approved');
  await registrations.refresh(business, NUMBER);
});

test('a number the business does not hold is not read', async () => {
  await expect(numberRegistrations(prisma, carriersOf(), ENFORCED).refresh('another-business', NUMBER)).rejects.toBeInstanceOf(NotFound);
});

test('the gate: a pending campaign is a Conflict in the exact words, enforced; a warning where the carrier is listed; the shared sender and approved numbers pass', async () => {
  fake.api.registrations.set(OTHER, 'pending');
  const enforced = numberRegistrations(prisma, carriersOf(), ENFORCED);
  await enforced.refresh(business, OTHER);
  const gate = enforced.gate();
  await expect(gate(business, OTHER)).rejects.toEqual(new Conflict(`Sender ${OTHER} is not in an approved 10DLC campaign (pending)`));
  await expect(gate(business, NUMBER)).resolves.toBeUndefined();
  await expect(gate(business, SHARED)).resolves.toBeUndefined();
  await expect(gate(business, null)).resolves.toBeUndefined();

  // Asked once per sender: a campaign's recipients share it (no second look-up of the stored row).
  const reads = fake.api.requests.length;
  await expect(gate(business, OTHER)).rejects.toBeInstanceOf(Conflict);
  expect(fake.api.requests.length).toBe(reads);

  for (const settings of [{ required: true, warnOnly: ['twilio'] }, { required: true, warnOnly: ['US'] }, { required: false, warnOnly: [] }]) {
    await expect(numberRegistrations(prisma, carriersOf(), settings).gate()(business, OTHER)).resolves.toBeUndefined();
  }
  fake.api.registrations.set(OTHER, 'approved');
  await enforced.refresh(business, OTHER);
  await expect(enforced.gate()(business, OTHER)).resolves.toBeUndefined();
});

test('not enforced, a number that may not send is a warning in the log once an hour, not once a send', async () => {
  fake.api.registrations.set(OTHER, 'pending');
  const warnOnly = numberRegistrations(prisma, carriersOf(), { required: true, warnOnly: ['twilio'] });
  await warnOnly.refresh(business, OTHER);
  const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  try {
    for (let send = 0; send < 3; send++) await expect(warnOnly.gate()(business, OTHER)).resolves.toBeUndefined();
    expect(warn.mock.calls.map(([fields]) => fields)).toEqual([{ event: 'number.registration_not_enforced', business, number: OTHER }]);
  } finally {
    warn.mockRestore();
    fake.api.registrations.set(OTHER, 'approved');
    await warnOnly.refresh(business, OTHER);
  }
});

test('a refusal with a registration code (30034) reads the number again at once; another code reads nothing', async () => {
  const registrations = numberRegistrations(prisma, carriersOf(), ENFORCED);
  fake.api.registrations.set(OTHER, 'unregistered');
  const before = fake.api.requests.length;
  await registrations.afterRefusal(business, OTHER, '21610');
  expect(fake.api.requests.length).toBe(before);
  await registrations.afterRefusal(business, OTHER, '30034');
  expect(await prisma.a2pRegistration.findUnique({ where: { number: OTHER } })).toMatchObject({ campaignId: null, campaignStatus: null });
  await expect(registrations.gate()(business, OTHER)).rejects.toEqual(new Conflict(`Sender ${OTHER} is not in an approved 10DLC campaign (unregistered)`));
  fake.api.registrations.set(OTHER, 'approved');
  await registrations.refresh(business, OTHER);
});

test('the scheduled refresh reads the numbers read longest ago, and none read since its cut', async () => {
  const registrations = numberRegistrations(prisma, carriersOf(), ENFORCED);
  const cut = new Date();
  const readBefore = await prisma.a2pRegistration.findMany({ where: { number: { in: [NUMBER, OTHER] } } });
  expect(readBefore.every((row) => row.readAt < cut)).toBe(true);
  // Only this business's numbers: the test database is shared with files running beside this one.
  expect(await registrations.refreshDue(cut, 10, [business])).toEqual({ read: 2, failed: 0 }); // NUMBER and OTHER
  const readAfter = await prisma.a2pRegistration.findMany({ where: { number: { in: [NUMBER, OTHER] } } });
  expect(readAfter.every((row) => row.readAt >= cut)).toBe(true);
  expect(await registrations.refreshDue(cut, 10, [business])).toEqual({ read: 0, failed: 0 });
});

test('where enforcement is off nothing asks the carrier on the way of a request; where it is on, a number never read is read at its PUT or its first send', async () => {
  const fresh = `${prefix}1003`;
  const later = `${prefix}1004`;
  for (const number of [fresh, later]) await registerNumber(prisma, { business, number, carrier: 'twilio', messagingServiceSid: null });
  fake.api.registrations.set(fresh, 'pending');
  fake.api.registrations.set(later, 'rejected');
  const before = fake.api.requests.length;
  const relaxed = numberRegistrations(prisma, carriersOf(), { required: false, warnOnly: [] });
  expect(await relaxed.afterPut(business, fresh)).toBeNull();
  await expect(relaxed.gate()(business, fresh)).resolves.toBeUndefined();
  expect(fake.api.requests.length).toBe(before);

  const enforced = numberRegistrations(prisma, carriersOf(), ENFORCED);
  expect(await enforced.afterPut(business, fresh)).toMatchObject({ campaignStatus: 'pending' });
  await expect(enforced.gate()(business, later)).rejects.toEqual(new Conflict(`Sender ${later} is not in an approved 10DLC campaign (rejected)`));
  expect(await prisma.a2pRegistration.findUnique({ where: { number: later } })).toMatchObject({ campaignStatus: 'rejected' });
});

test('the hourly activity reads the numbers of RECONCILE_BUSINESSES read longer than an hour ago, heartbeating once per number', async () => {
  const env = new MockActivityEnvironment();
  const beats: unknown[] = [];
  env.on('heartbeat', (details: unknown) => beats.push(details));
  const asked: { ageMs: number; limit: number; businesses?: readonly string[] }[] = [];
  const registrations = {
    async refreshDue(before: Date, limit: number, businesses?: readonly string[], progress?: () => void) {
      asked.push({ ageMs: Date.now() - before.getTime(), limit, businesses });
      for (let k = 0; k < 3; k++) progress?.();
      return { read: 3, failed: 0 };
    },
  };
  const { refreshNumberRegistrations } = createRegistrationActivities({ registrations, reconcileBusinesses: [business] });
  expect(await env.run(refreshNumberRegistrations)).toEqual({ read: 3, failed: 0 });
  expect(beats).toHaveLength(3);
  expect(asked).toEqual([{ ageMs: expect.any(Number), limit: REGISTRATION_REFRESH_LIMIT, businesses: [business] }]);
  expect(asked[0].ageMs).toBeGreaterThanOrEqual(REGISTRATION_REFRESH_EVERY_MS);
  expect(asked[0].ageMs).toBeLessThan(REGISTRATION_REFRESH_EVERY_MS + 5_000);
});
