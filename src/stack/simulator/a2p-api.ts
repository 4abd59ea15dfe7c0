import { createHash } from 'node:crypto';
import { registrationKindOf } from '../../domain/number-registration';
import { ApiError, twilioDate } from './api-error';

/*
 * The A2P registration of the simulated account's numbers, served as Twilio's Messaging API serves it
 * (messaging.twilio.com/v1, on the same port as the REST API), read-only:
 *
 * - `GET /v1/Services` — the account's Messaging Services: one per campaign status here (`approved`,
 *   `pending`, `rejected`), each with its US A2P campaign (`GET /v1/Services/{MG}/Compliance/Usa2p`:
 *   VERIFIED, IN_PROGRESS, FAILED) of the account's one brand (`GET /v1/a2p/BrandRegistrations/{BN}`,
 *   APPROVED unless set otherwise) and the numbers in that state (`GET /v1/Services/{MG}/PhoneNumbers`).
 *   An `unregistered` number is in no service.
 * - `GET /2010-04-01/Accounts/{AC}/IncomingPhoneNumbers.json?PhoneNumber=` and
 *   `GET /v1/Tollfree/Verifications?TollfreePhoneNumberSid=PN…` — a toll-free number's verification
 *   (TWILIO_APPROVED, IN_REVIEW, TWILIO_REJECTED; none when unregistered).
 *
 * Requests are checked as Twilio documents them: GET only, `PageSize` 1 to 1,000, sids of their kind
 * (`MG…`, `BN…`, `PN…`: 34 characters). Every number of the simulator is approved until a test or an
 * operator sets it otherwise (`POST /simulator/registration`, doors.ts); a number it does not own is
 * unregistered.
 */

export const SIMULATED_REGISTRATIONS = ['approved', 'pending', 'rejected', 'unregistered'] as const;
export type SimulatedRegistration = (typeof SIMULATED_REGISTRATIONS)[number];
type Campaigned = Exclude<SimulatedRegistration, 'unregistered'>;

const CAMPAIGN_STATUS: Record<Campaigned, string> = { approved: 'VERIFIED', pending: 'IN_PROGRESS', rejected: 'FAILED' };
const TOLL_FREE_STATUS: Record<Campaigned, string> = { approved: 'TWILIO_APPROVED', pending: 'IN_REVIEW', rejected: 'TWILIO_REJECTED' };
const BRAND_STATUS: Record<Campaigned, string> = { approved: 'APPROVED', pending: 'IN_REVIEW', rejected: 'FAILED' };
const CAMPAIGNED: readonly Campaigned[] = ['approved', 'pending', 'rejected'];
const MESSAGING = 'https://messaging.twilio.com/v1';

const sidOf = (prefix: string, ...parts: string[]) => prefix + createHash('sha256').update(parts.join('/')).digest('hex').slice(0, 32);

function pageSizeOf(query: URLSearchParams): number {
  const given = query.get('PageSize');
  if (given === null) return 50;
  const size = Number(given);
  if (!Number.isInteger(size) || size < 1 || size > 1000) throw new ApiError(400, 20001, 'PageSize must be an integer from 1 to 1000');
  return size;
}

/** A v1 list page as the Messaging API answers it (one page: the simulator's lists are short). */
function v1Page(key: string, path: string, query: URLSearchParams, items: unknown[]) {
  const size = pageSizeOf(query);
  const url = `${MESSAGING}${path.replace(/^\/v1/, '')}?PageSize=${size}&Page=0`;
  return { [key]: items.slice(0, size), meta: { page: 0, page_size: size, first_page_url: url, previous_page_url: null, url, next_page_url: null, key } };
}

export class A2pRegistry {
  private readonly states = new Map<string, SimulatedRegistration>();
  private brand: Campaigned = 'approved';
  private readonly created = twilioDate(new Date());

  constructor(private readonly owned: readonly string[]) {}

  /** Sets a number's registration (its campaign, or its toll-free verification). */
  set(number: string, state: SimulatedRegistration): void {
    this.states.set(number, state);
  }

  /** Sets the account's brand status (every campaign's brand). */
  setBrand(state: Campaigned): void {
    this.brand = state;
  }

  of(number: string): SimulatedRegistration {
    return this.states.get(number) ?? (this.owned.includes(number) ? 'approved' : 'unregistered');
  }

  private known(): string[] {
    return [...new Set([...this.owned, ...this.states.keys()])].sort();
  }

  private serviceSid(account: string, state: Campaigned): string {
    return sidOf('MG', account, 'service', state);
  }

  private brandSid(account: string): string {
    return sidOf('BN', account, 'brand');
  }

  /** The answer to a Messaging API request of `account`, or undefined when the path is none of these. */
  handle(method: string, path: string, query: URLSearchParams, account: string): unknown {
    const ours = path.startsWith('/v1/Services') || path.startsWith('/v1/a2p/') || path.startsWith('/v1/Tollfree/') || /^\/2010-04-01\/Accounts\/[^/]+\/IncomingPhoneNumbers\.json$/.test(path);
    if (!ours) return undefined;
    if (method !== 'GET') throw new ApiError(405, 20004, 'Method not allowed');
    if (path === '/v1/Services') return v1Page('services', path, query, CAMPAIGNED.map((state) => this.serviceView(account, state)));
    const service = /^\/v1\/Services\/([^/]+)\/(PhoneNumbers|Compliance\/Usa2p)$/.exec(path);
    if (service) {
      const state = CAMPAIGNED.find((candidate) => this.serviceSid(account, candidate) === service[1]);
      if (!/^MG[0-9a-f]{32}$/.test(service[1]) || !state) throw new ApiError(404, 20404, `The requested resource ${path} was not found`);
      if (service[2] === 'PhoneNumbers') {
        const numbers = this.known().filter((number) => registrationKindOf(number) === '10dlc' && this.of(number) === state);
        return v1Page('phone_numbers', path, query, numbers.map((number) => this.serviceNumberView(account, service[1], number)));
      }
      return v1Page('compliance', path, query, [this.campaignView(account, service[1], state)]);
    }
    const brand = /^\/v1\/a2p\/BrandRegistrations\/([^/]+)$/.exec(path);
    if (brand) {
      if (!/^BN[0-9a-f]{32}$/.test(brand[1]) || brand[1] !== this.brandSid(account)) throw new ApiError(404, 20404, `The requested resource ${path} was not found`);
      return this.brandView(account);
    }
    if (path === '/v1/Tollfree/Verifications') return this.verifications(path, query, account);
    return this.incomingNumbers(path, query, account);
  }

  private verifications(path: string, query: URLSearchParams, account: string) {
    const phoneSid = query.get('TollfreePhoneNumberSid');
    if (phoneSid !== null && !/^PN[0-9a-f]{32}$/.test(phoneSid)) throw new ApiError(400, 30436, 'Invalid Phone Number SID');
    const matching = this.known().filter((number) => registrationKindOf(number) === 'toll_free' && this.of(number) !== 'unregistered' && (phoneSid === null || sidOf('PN', account, number) === phoneSid));
    return v1Page('verifications', path, query, matching.map((number) => {
      const state = this.of(number) as Campaigned;
      return { sid: sidOf('HH', account, number), account_sid: account, tollfree_phone_number_sid: sidOf('PN', account, number), status: TOLL_FREE_STATUS[state], date_created: this.created, date_updated: this.created, url: `${MESSAGING}/Tollfree/Verifications/${sidOf('HH', account, number)}` };
    }));
  }

  private incomingNumbers(path: string, query: URLSearchParams, account: string) {
    const wanted = query.get('PhoneNumber');
    if (wanted !== null && !/^\+[1-9]\d{1,14}$/.test(wanted)) throw new ApiError(400, 21421, 'PhoneNumber is invalid');
    const size = pageSizeOf(query);
    const numbers = this.known().filter((number) => (wanted === null || number === wanted) && (this.owned.includes(number) || this.states.has(number)));
    const uri = `${path}?PageSize=${size}&Page=0`;
    return {
      incoming_phone_numbers: numbers.slice(0, size).map((number) => ({ sid: sidOf('PN', account, number), account_sid: account, phone_number: number, friendly_name: number, capabilities: { sms: true, mms: true, voice: false }, date_created: this.created, date_updated: this.created })),
      end: Math.max(Math.min(numbers.length, size) - 1, 0),
      first_page_uri: uri,
      next_page_uri: null,
      page: 0,
      page_size: size,
      previous_page_uri: null,
      start: 0,
      uri,
    };
  }

  private serviceView(account: string, state: Campaigned) {
    const sid = this.serviceSid(account, state);
    return { sid, account_sid: account, friendly_name: `Simulated ${state} campaign`, date_created: this.created, date_updated: this.created, us_app_to_person_registered: true, url: `${MESSAGING}/Services/${sid}` };
  }

  private serviceNumberView(account: string, service: string, number: string) {
    const sid = sidOf('PN', account, number);
    return { sid, account_sid: account, service_sid: service, phone_number: number, country_code: 'US', capabilities: ['SMS', 'MMS'], date_created: this.created, date_updated: this.created, url: `${MESSAGING}/Services/${service}/PhoneNumbers/${sid}` };
  }

  private campaignView(account: string, service: string, state: Campaigned) {
    const sid = sidOf('QE', account, service);
    return {
      sid,
      account_sid: account,
      brand_registration_sid: this.brandSid(account),
      messaging_service_sid: service,
      description: 'Appointment reminders and replies to customers of the simulated business',
      us_app_to_person_usecase: 'CUSTOMER_CARE',
      campaign_status: CAMPAIGN_STATUS[state],
      campaign_id: sidOf('C', account, service).slice(0, 8).toUpperCase(),
      is_externally_registered: false,
      date_created: this.created,
      date_updated: this.created,
      url: `${MESSAGING}/Services/${service}/Compliance/Usa2p/${sid}`,
    };
  }

  private brandView(account: string) {
    const sid = this.brandSid(account);
    return { sid, account_sid: account, brand_type: 'STANDARD', status: BRAND_STATUS[this.brand], tcr_id: sid.slice(2, 9).toUpperCase(), identity_status: 'VERIFIED', date_created: this.created, date_updated: this.created, url: `${MESSAGING}/a2p/BrandRegistrations/${sid}` };
  }
}
