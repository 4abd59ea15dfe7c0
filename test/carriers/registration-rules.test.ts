import { a2pRegistrationSettingsOf, loadConfig } from '../../src/config/index';
import {
  enforcementFor,
  leastStatus,
  registrationKindOf,
  sameRegistration,
  sendVerdict,
  statusIn,
  unreadableRegistration,
  type A2pRegistration,
  type RegistrationStatus,
} from '../../src/domain/number-registration';

/* A number's A2P registration as rules (src/domain/number-registration.ts): each case a row, no server. */

const US = '+14155550100';
const TOLL_FREE = '+18885550100';

const tenDlc = (campaign: RegistrationStatus | null, brand: RegistrationStatus | null = 'approved'): A2pRegistration => ({
  kind: '10dlc',
  brand: brand === null ? null : { id: 'BN1', status: brand },
  campaign: campaign === null ? null : { id: 'CMP1', useCase: 'CUSTOMER_CARE', status: campaign },
  tollFree: null,
});
const tollFree = (status: RegistrationStatus | null): A2pRegistration => ({ kind: 'toll_free', brand: null, campaign: null, tollFree: status === null ? null : { status } });

test.each([
  ['a US local number needs a 10DLC campaign', US, '10dlc'],
  ['a US territory (Puerto Rico) too', '+17875550100', '10dlc'],
  ['a NANP toll-free number needs a verification', TOLL_FREE, 'toll_free'],
  ['a Canadian number needs nothing', '+14165550100', 'none'],
  ['a Jamaican (NANP) number needs nothing', '+18765550100', 'none'],
  ['a UK number needs nothing', '+447700900123', 'none'],
] as const)('registrationKindOf: %s', (_name, number, kind) => {
  expect(registrationKindOf(number)).toBe(kind);
});

test.each([
  ['approved campaign of an approved brand', US, tenDlc('approved'), false, { allowed: true }],
  ['a campaign still pending', US, tenDlc('pending'), false, { allowed: false, reason: `Sender ${US} is not in an approved 10DLC campaign (pending)` }],
  ['a rejected campaign', US, tenDlc('rejected'), false, { allowed: false, reason: `Sender ${US} is not in an approved 10DLC campaign (rejected)` }],
  ['in no campaign', US, tenDlc(null, null), false, { allowed: false, reason: `Sender ${US} is not in an approved 10DLC campaign (unregistered)` }],
  ['approved campaign, brand pending', US, tenDlc('approved', 'pending'), false, { allowed: false, reason: `Sender ${US} is not in an approved 10DLC campaign (brand pending)` }],
  ['approved campaign, no brand read', US, tenDlc('approved', null), false, { allowed: false, reason: `Sender ${US} is not in an approved 10DLC campaign (brand unregistered)` }],
  ['the carrier could not tell: allowed, with a warning', US, tenDlc('unknown'), false, { allowed: true, warning: `Sender ${US} is not in an approved 10DLC campaign (unknown)` }],
  ['never read: allowed, with a warning', US, null, false, { allowed: true, warning: `Sender ${US} is not in an approved 10DLC campaign (unknown)` }],
  ['the shared sender, whatever it says', US, tenDlc(null, null), true, { allowed: true }],
  ['a UK number, whatever it says', '+447700900123', tenDlc('rejected'), false, { allowed: true }],
  ['a Canadian number in no campaign', '+14165550100', tenDlc(null, null), false, { allowed: true }],
  ['a verified toll-free number', TOLL_FREE, tollFree('approved'), false, { allowed: true }],
  ['a toll-free verification in review', TOLL_FREE, tollFree('pending'), false, { allowed: false, reason: `Sender ${TOLL_FREE} is not a verified toll-free number (pending)` }],
  ['a toll-free number never submitted', TOLL_FREE, tollFree(null), false, { allowed: false, reason: `Sender ${TOLL_FREE} is not a verified toll-free number (unregistered)` }],
  ['a toll-free number never read', TOLL_FREE, null, false, { allowed: true, warning: `Sender ${TOLL_FREE} is not a verified toll-free number (unknown)` }],
  ['a carrier that reads nothing (Vonage)', US, unreadableRegistration(US), false, { allowed: true, warning: `Sender ${US} is not in an approved 10DLC campaign (unknown)` }],
] as const)('sendVerdict: %s', (_name, sender, registration, shared, verdict) => {
  expect(sendVerdict(sender, registration, shared)).toEqual(verdict);
});

test.each([
  ['required, nothing listed', { required: true, warnOnly: [] }, 'twilio', US, 'enforce'],
  ['not required (outside production)', { required: false, warnOnly: [] }, 'twilio', US, 'warn'],
  ['the carrier listed', { required: true, warnOnly: ['vonage'] }, 'vonage', US, 'warn'],
  ['another carrier listed', { required: true, warnOnly: ['vonage'] }, 'twilio', US, 'enforce'],
  ['the country listed', { required: true, warnOnly: ['US'] }, 'telnyx', US, 'warn'],
  ['the country listed in lower case', { required: true, warnOnly: ['us'] }, 'telnyx', TOLL_FREE, 'warn'],
  ['another country listed', { required: true, warnOnly: ['CA'] }, 'telnyx', US, 'enforce'],
] as const)('enforcementFor: %s', (_name, settings, carrier, number, enforcement) => {
  expect(enforcementFor(settings, carrier, number)).toBe(enforcement);
});

test.each([
  ['the same reading', tenDlc('pending'), tenDlc('pending'), true],
  ['the campaign approved since', tenDlc('pending'), tenDlc('approved'), false],
  ['the brand changed', tenDlc('approved', 'approved'), tenDlc('approved', 'rejected'), false],
  ['the number left its campaign', tenDlc('approved'), tenDlc(null, null), false],
  ['a toll-free verification approved', tollFree('pending'), tollFree('approved'), false],
] as const)('sameRegistration: %s', (_name, a, b, same) => {
  expect(sameRegistration(a, b)).toBe(same);
});

test.each([
  ['development: a warning only', {}, { required: false, warnOnly: [] }],
  ['production: enforced', { NODE_ENV: 'production' }, { required: true, warnOnly: [] }],
  ['production, turned off', { NODE_ENV: 'production', REQUIRE_A2P_REGISTRATION: 'false' }, { required: false, warnOnly: [] }],
  ['the simulator (npm start): enforced, its numbers approved until set otherwise', { MESSAGE_PROVIDER: 'simulator' }, { required: true, warnOnly: [] }],
  ['carriers and countries that only warn', { NODE_ENV: 'production', A2P_REGISTRATION_WARN_ONLY: 'vonage, US,vonage' }, { required: true, warnOnly: ['vonage', 'US'] }],
] as const)('REQUIRE_A2P_REGISTRATION and A2P_REGISTRATION_WARN_ONLY: %s', (_name, env, settings) => {
  expect(a2pRegistrationSettingsOf(loadConfig(env))).toEqual(settings);
});

describe("a carrier's word in ours, and a campaign only as far as its number's link", () => {
  const TABLE = { ACTIVE: 'approved', PENDING: 'pending', FAILED: 'rejected' } as const;
  test.each<[unknown, RegistrationStatus]>([
    ['ACTIVE', 'approved'],
    ['PENDING', 'pending'],
    ['FAILED', 'rejected'],
    ['active', 'unknown'],
    ['toString', 'unknown'],
    [undefined, 'unknown'],
    [7, 'unknown'],
  ])('%p reads as %s', (word, status) => {
    expect(statusIn(TABLE, word)).toBe(status);
  });

  test.each<[RegistrationStatus, RegistrationStatus, RegistrationStatus]>([
    ['approved', 'pending', 'pending'],
    ['pending', 'approved', 'pending'],
    ['approved', 'unknown', 'unknown'],
    ['unknown', 'pending', 'unknown'],
    ['pending', 'rejected', 'rejected'],
    ['unregistered', 'approved', 'unregistered'],
    ['approved', 'approved', 'approved'],
  ])('%s with %s: %s', (a, b, least) => {
    expect(leastStatus(a, b)).toBe(least);
  });
});
