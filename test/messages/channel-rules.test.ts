import { insideWhatsAppWindow, isWithinWorkingHours, MAX_MEDIA, nextShiftStart, numberChannelOf, optOutChannelOf, type WorkingHours } from '../../src/domain';

/* Channels and working hours as rules (src/domain/channels.ts, working-hours.ts): each case a row, no server. */

test.each([
  ['an SMS without media needs sms', 'sms', 0, 'sms'],
  ['an SMS with media is an MMS', 'sms', 2, 'mms'],
  ['WhatsApp needs whatsapp, with or without media', 'whatsapp', 1, 'whatsapp'],
  ['RCS needs an RCS sender, with or without media', 'rcs', 1, 'rcs'],
] as const)('numberChannelOf: %s', (_name, channel, media, needed) => {
  expect(numberChannelOf(channel, media)).toBe(needed);
});

test.each([
  ['sms', 'sms'],
  ['whatsapp', 'whatsapp'],
  ['rcs, kept with the SMS it falls back to: a STOP on either stops both', 'sms'],
  ['anything else (MMS rows are sms) is kept under sms', 'sms'],
])('optOutChannelOf(%s)', (channel, kept) => {
  expect(optOutChannelOf(channel)).toBe(kept);
});

const LAST = new Date('2030-01-01T12:00:00.000Z');
test.each([
  ['no inbound WhatsApp message ever', null, LAST, false],
  ['a minute after the client wrote', LAST, new Date('2030-01-01T12:01:00.000Z'), true],
  ['a millisecond before 24 hours', LAST, new Date('2030-01-02T11:59:59.999Z'), true],
  ['24 hours after: closed', LAST, new Date('2030-01-02T12:00:00.000Z'), false],
])('insideWhatsAppWindow: %s', (_name, lastInbound, at, inside) => {
  expect(insideWhatsAppWindow(lastInbound, at)).toBe(inside);
});

test('media per message: MMS 10, WhatsApp 1, RCS 1', () => {
  expect(MAX_MEDIA).toEqual({ sms: 10, whatsapp: 1, rcs: 1 });
});

// 2030-01-07 is a Monday; New York is UTC-5 in January.
const WEEKDAYS_9_TO_5: WorkingHours = { mon: [['09:00', '17:00']], tue: [['09:00', '17:00']], wed: [['09:00', '17:00']], thu: [['09:00', '17:00']], fri: [['09:00', '17:00']] };
const NY = 'America/New_York';
test.each([
  ['no hours: always', null, '2030-01-06T03:00:00.000Z', true],
  ['Monday 09:00 in New York', WEEKDAYS_9_TO_5, '2030-01-07T14:00:00.000Z', true],
  ['Monday 08:59 in New York', WEEKDAYS_9_TO_5, '2030-01-07T13:59:00.000Z', false],
  ['Monday 17:00 in New York: the shift has ended', WEEKDAYS_9_TO_5, '2030-01-07T22:00:00.000Z', false],
  ['Sunday noon', WEEKDAYS_9_TO_5, '2030-01-06T17:00:00.000Z', false],
] as const)('isWithinWorkingHours: %s', (_name, hours, at, within) => {
  expect(isWithinWorkingHours(hours, NY, new Date(at))).toBe(within);
});

test.each([
  ['Saturday: Monday 09:00 New York', '2030-01-05T15:00:00.000Z', '2030-01-07T14:00:00.000Z'],
  ['Monday 07:00: that morning', '2030-01-07T12:00:00.000Z', '2030-01-07T14:00:00.000Z'],
  ['Monday 18:00: Tuesday morning', '2030-01-07T23:00:00.000Z', '2030-01-08T14:00:00.000Z'],
])('nextShiftStart: %s', (_name, after, start) => {
  expect(nextShiftStart(WEEKDAYS_9_TO_5, NY, new Date(after))?.toISOString()).toBe(start);
});
