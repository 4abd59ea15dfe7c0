/*
 * A business number's A2P registration (docs/design.md, "Number registration (10DLC, toll-free)"): what
 * US carriers ask of a number before they carry application-to-person texts from it, as its carrier's API
 * says it, in our vocabulary; and the rules that decide whether a number may send and in which words it
 * may not. Pure: the accept, the send when due and the views all ask these.
 */

/** Our word for every carrier's status of a brand, a campaign (with the number's place in it) or a toll-free verification. */
export const REGISTRATION_STATUSES = ['approved', 'pending', 'rejected', 'unregistered', 'unknown'] as const;
export type RegistrationStatus = (typeof REGISTRATION_STATUSES)[number];

/** What a number needs: a 10DLC campaign (a US local number), a toll-free verification (a NANP toll-free number), or nothing. */
/** A carrier's word for a status in ours, by its table (a status the table lacks, or none: unknown). */
export function statusIn(table: Readonly<Record<string, RegistrationStatus>>, word: unknown): RegistrationStatus {
  return typeof word === 'string' && Object.hasOwn(table, word) ? table[word] : 'unknown';
}

const RANK: Record<RegistrationStatus, number> = { rejected: 0, unregistered: 1, unknown: 2, pending: 3, approved: 4 };

/** The less advanced of two statuses: a campaign is only as approved as its number's assignment to it. */
export const leastStatus = (a: RegistrationStatus, b: RegistrationStatus): RegistrationStatus => (RANK[a] <= RANK[b] ? a : b);

export type RegistrationKind = '10dlc' | 'toll_free' | 'none';

export interface A2pRegistration {
  kind: RegistrationKind;
  /** 10DLC: the brand the campaign belongs to; null when the number is in no campaign. */
  brand: { id: string | null; status: RegistrationStatus } | null;
  /** 10DLC: the campaign holding the number; `status` also says whether the number's assignment to it is done. Null: in none. */
  campaign: { id: string | null; useCase: string | null; status: RegistrationStatus } | null;
  /** Toll-free: its verification; null when none was ever asked for. */
  tollFree: { status: RegistrationStatus } | null;
}

/** The stored registration with when it was last read from the carrier and when it last changed. */
export interface StoredRegistration extends A2pRegistration {
  number: string;
  carrier: string;
  readAt: Date;
  changedAt: Date;
}

/** NANP area codes of toll-free numbers (shared by the US and Canada). */
const TOLL_FREE_AREA_CODES = new Set(['800', '833', '844', '855', '866', '877', '888']);

/** Canada's area codes: no 10DLC there. */
const CANADA_AREA_CODES = new Set([
  '204', '226', '236', '249', '250', '257', '263', '289', '306', '343', '354', '365', '367', '368', '382', '387', '403', '416', '418', '428', '431',
  '437', '438', '450', '460', '468', '474', '506', '514', '519', '548', '579', '581', '584', '587', '604', '613', '639', '647', '672', '683', '705',
  '709', '742', '753', '778', '780', '782', '807', '819', '825', '867', '873', '879', '902', '905', '942',
]);

/** The Caribbean and Atlantic members of the NANP (the US territories' codes are not here: they are US numbers). */
const OTHER_NANP_AREA_CODES = new Set([
  '242', '246', '264', '268', '284', '345', '441', '473', '649', '658', '664', '721', '758', '767', '784', '809', '829', '849', '868', '869', '876',
]);

/** The country of a number as far as registration cares: `US`, `CA`, another NANP member (`NANP`), or null (outside the NANP). */
export function registrationCountryOf(number: string): 'US' | 'CA' | 'NANP' | null {
  const nanp = /^\+1(\d{3})\d{7}$/.exec(number);
  if (!nanp) return null;
  const area = nanp[1];
  if (TOLL_FREE_AREA_CODES.has(area)) return 'US';
  if (CANADA_AREA_CODES.has(area)) return 'CA';
  return OTHER_NANP_AREA_CODES.has(area) ? 'NANP' : 'US';
}

/** What a number needs before US carriers take its A2P texts. */
export function registrationKindOf(number: string): RegistrationKind {
  const nanp = /^\+1(\d{3})\d{7}$/.exec(number);
  if (!nanp) return 'none';
  if (TOLL_FREE_AREA_CODES.has(nanp[1])) return 'toll_free';
  return registrationCountryOf(number) === 'US' ? '10dlc' : 'none';
}

/**
 * Whether `sender` may send A2P texts now, and if not why, in the words a 409 and a failed message show.
 * `shared`: the deployment's shared sender, which no business registers (allowed). `registration` null:
 * never read. A status the carrier could not tell (`unknown`: unreachable, or a carrier whose SDK reads no
 * registration) allows the send, with a warning: the carrier itself is the last check.
 */
export type SendVerdict = { allowed: true; warning?: string } | { allowed: false; reason: string };

export function sendVerdict(sender: string, registration: A2pRegistration | null, shared = false): SendVerdict {
  const kind = registrationKindOf(sender);
  if (shared || kind === 'none') return { allowed: true };
  if (kind === 'toll_free') {
    const status = registration?.tollFree?.status ?? (registration ? 'unregistered' : 'unknown');
    return verdictOf(status, `Sender ${sender} is not a verified toll-free number (${status})`);
  }
  if (!registration) return verdictOf('unknown', `Sender ${sender} is not in an approved 10DLC campaign (unknown)`);
  const { campaign, brand } = registration;
  if (!campaign) return verdictOf('unregistered', `Sender ${sender} is not in an approved 10DLC campaign (unregistered)`);
  if (campaign.status !== 'approved') return verdictOf(campaign.status, `Sender ${sender} is not in an approved 10DLC campaign (${campaign.status})`);
  const brandStatus = brand?.status ?? 'unregistered';
  return verdictOf(brandStatus, `Sender ${sender} is not in an approved 10DLC campaign (brand ${brandStatus})`);
}

function verdictOf(status: RegistrationStatus, words: string): SendVerdict {
  if (status === 'approved') return { allowed: true };
  if (status === 'unknown') return { allowed: true, warning: words };
  return { allowed: false, reason: words };
}

/**
 * How a refusal is applied to a number of `carrier` in `country` (REQUIRE_A2P_REGISTRATION, and
 * A2P_REGISTRATION_WARN_ONLY: carriers and countries where a refusal is only a warning).
 */
export type Enforcement = 'enforce' | 'warn';

export function enforcementFor(settings: { required: boolean; warnOnly: readonly string[] }, carrier: string, number: string): Enforcement {
  if (!settings.required) return 'warn';
  const country = registrationCountryOf(number);
  const listed = settings.warnOnly.map((entry) => entry.toLowerCase());
  if (listed.includes(carrier.toLowerCase())) return 'warn';
  return country !== null && listed.includes(country.toLowerCase()) ? 'warn' : 'enforce';
}

/** Whether two readings of a number's registration say the same (a refresh that changes nothing records no event). */
export function sameRegistration(a: A2pRegistration, b: A2pRegistration): boolean {
  return (
    a.kind === b.kind &&
    a.brand?.id === b.brand?.id &&
    a.brand?.status === b.brand?.status &&
    a.campaign?.id === b.campaign?.id &&
    a.campaign?.status === b.campaign?.status &&
    (a.campaign?.useCase ?? null) === (b.campaign?.useCase ?? null) &&
    a.tollFree?.status === b.tollFree?.status
  );
}

/** The registration of a number its carrier reads nothing for (Vonage: docs/design.md): its status unknown. */
export function unreadableRegistration(number: string): A2pRegistration {
  const kind = registrationKindOf(number);
  if (kind === 'toll_free') return { kind, brand: null, campaign: null, tollFree: { status: 'unknown' } };
  if (kind === '10dlc') return { kind, brand: null, campaign: { id: null, useCase: null, status: 'unknown' }, tollFree: null };
  return { kind, brand: null, campaign: null, tollFree: null };
}
