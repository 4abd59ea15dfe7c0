import { createHash } from 'node:crypto';
import { E164, error } from './fake-telnyx-requests';

/*
 * Telnyx's 10DLC and toll-free verification APIs as the fake serves them, read-only, as Telnyx documents
 * them: `GET /v2/10dlc/phone_number_campaigns/{phoneNumber}` (the number's campaign assignment, 404 when it
 * has none), `GET /v2/10dlc/campaign/{campaignId}` and `GET /v2/10dlc/brand/{brandId}` (bare objects, not
 * `{ data }`), and `GET /v2/messaging_tollfree/verification/requests?phone_number=&page=&page_size=`
 * (`{ records, total_records }`; `page` and `page_size` are required, page_size 1 to 100). Only GET.
 */

export type FakeRegistration = 'approved' | 'pending' | 'rejected' | 'unregistered';

const CAMPAIGN_STATUS = { approved: 'MNO_PROVISIONED', pending: 'TCR_ACCEPTED', rejected: 'MNO_REJECTED' } as const;
const ASSIGNMENT_STATUS = { approved: 'ASSIGNED', pending: 'PENDING_ASSIGNMENT', rejected: 'FAILED_ASSIGNMENT' } as const;
const TOLL_FREE_STATUS = { approved: 'Verified', pending: 'In Progress', rejected: 'Rejected' } as const;

const idOf = (...parts: string[]) => createHash('sha256').update(parts.join('/')).digest('hex').slice(0, 8).toUpperCase();
const notFound = () => ({ status: 404, body: error('10005', 'Resource not found', 'The requested resource or URL could not be found.') });
const now = new Date().toISOString();

export class FakeTelnyxRegistrations {
  private readonly states = new Map<string, FakeRegistration>();
  /** The brand's status (`OK`, `REGISTRATION_PENDING`, `REGISTRATION_FAILED`). */
  brandStatus = 'OK';
  readonly brandId = `4B${idOf('brand')}`;

  /** Sets a number's campaign (10DLC) or verification (toll-free); unregistered: none. */
  set(number: string, state: FakeRegistration): void {
    this.states.set(number, state);
  }

  private campaignIdOf(state: Exclude<FakeRegistration, 'unregistered'>): string {
    return `4B${idOf('campaign', state)}`;
  }

  /** The answer to a request under `/v2/10dlc` or `/v2/messaging_tollfree`, or undefined for another path. */
  answer(method: string, path: string, query: URLSearchParams): { status: number; body: unknown } | undefined {
    if (!path.startsWith('/v2/10dlc/') && !path.startsWith('/v2/messaging_tollfree/')) return undefined;
    if (method !== 'GET') return { status: 405, body: error('10015', 'Bad Request', 'Only GET is served here.') };
    const assignment = /^\/v2\/10dlc\/phone_number_campaigns\/([^/]+)$/.exec(path);
    if (assignment) return this.assignment(decodeURIComponent(assignment[1]));
    const campaign = /^\/v2\/10dlc\/campaign\/([^/]+)$/.exec(path);
    if (campaign) {
      const state = (['approved', 'pending', 'rejected'] as const).find((candidate) => this.campaignIdOf(candidate) === campaign[1]);
      if (!state) return notFound();
      return { status: 200, body: { campaignId: campaign[1], brandId: this.brandId, usecase: 'CUSTOMER_CARE', campaignStatus: CAMPAIGN_STATUS[state], createDate: now } };
    }
    const brand = /^\/v2\/10dlc\/brand\/([^/]+)$/.exec(path);
    if (brand) return brand[1] === this.brandId ? { status: 200, body: { brandId: this.brandId, status: this.brandStatus, identityStatus: 'VERIFIED', entityType: 'PRIVATE_PROFIT', createdAt: now } } : notFound();
    if (path === '/v2/messaging_tollfree/verification/requests') return this.verifications(query);
    return notFound();
  }

  private assignment(number: string) {
    if (!E164.test(number)) return { status: 400, body: error('10016', 'Phone number must be in +E.164 format', 'The phone number must be in +E.164 format.') };
    const state = this.states.get(number);
    if (!state || state === 'unregistered') return notFound();
    const campaignId = this.campaignIdOf(state);
    return { status: 200, body: { phoneNumber: number, campaignId, telnyxCampaignId: campaignId, brandId: this.brandId, assignmentStatus: ASSIGNMENT_STATUS[state], createdAt: now, updatedAt: now } };
  }

  private verifications(query: URLSearchParams) {
    const page = Number(query.get('page'));
    const size = Number(query.get('page_size'));
    if (!query.has('page') || !Number.isInteger(page) || page < 1) return { status: 400, body: error('10015', 'Bad Request', '"page" is required: an integer from 1.', '/page') };
    if (!query.has('page_size') || !Number.isInteger(size) || size < 1 || size > 100) return { status: 400, body: error('10015', 'Bad Request', '"page_size" is required: an integer from 1 to 100.', '/page_size') };
    const wanted = query.get('phone_number');
    if (wanted !== null && !E164.test(wanted)) return { status: 400, body: error('10016', 'Phone number must be in +E.164 format', 'The "phone_number" filter must be in +E.164 format.', '/phone_number') };
    const records = [...this.states.entries()]
      .filter(([number, state]) => state !== 'unregistered' && (wanted === null || number === wanted) && /^\+18(00|33|44|55|66|77|88)/.test(number))
      .map(([number, state]) => ({ id: idOf('verification', number), phoneNumbers: [{ phoneNumber: number }], verificationStatus: TOLL_FREE_STATUS[state as Exclude<FakeRegistration, 'unregistered'>], createdAt: now, updatedAt: now }));
    return { status: 200, body: { records: records.slice((page - 1) * size, page * size), total_records: records.length } };
  }
}
