/*
 * Vonage's 10DLC API ("10DLC Brand and Campaign Provisioning") as the fake serves it, read-only, as Vonage
 * documents it: `GET /v1/10dlc/brands`, `GET /v1/10dlc/brands/{brand_id}/campaigns` and
 * `GET /v1/10dlc/brands/{brand_id}/campaigns/{campaign_id}/numbers`, each a page
 * `{ page, page_size, total_pages, total_items, _embedded: { brands | campaigns | numbers } }` with the
 * optional integer query parameters `page` and `page_size` (and `filter`, which the reader never sends),
 * and only Basic key:secret. Numbers are E.164 without the `+`. One brand, one campaign per state a number
 * is put in. The statuses are the spec's (definitions/10dlc.yml 1.0.15, src/carriers/vonage/registration.ts):
 * a brand ACTIVE (DELETED once deleted), a campaign ACTIVE, a number's link APPROVED or PENDING
 * (NumberStatus); the spec names no campaign status in review, so that one is the dashboard's
 * "Carriers Review" in the API's form.
 */

export type FakeVonageRegistration = 'approved' | 'pending' | 'unregistered';

const CAMPAIGN_STATUS = { approved: 'ACTIVE', pending: 'CARRIERS_REVIEW' } as const;
const LINK_STATUS = { approved: 'APPROVED', pending: 'PENDING' } as const;

type Answer = { status: number; body: unknown };

const problem = (status: number, title: string, detail: string): Answer => ({
  status,
  body: { type: `https://developer.vonage.com/api-errors#${status === 401 ? 'unauthorized' : status === 404 ? 'not-found' : 'bad-request'}`, title, detail },
});

export class FakeVonageRegistrations {
  readonly brandId = 'BVONAG1';
  /** The brand's status. */
  brandStatus = 'ACTIVE';
  private readonly states = new Map<string, Exclude<FakeVonageRegistration, 'unregistered'>>();
  /** The requests served here, with their query. */
  readonly requests: { path: string; query: URLSearchParams; authorization: string | undefined }[] = [];

  constructor(private readonly basic: () => string) {}

  /** Links a number (E.164) to the campaign of that state; unregistered: to none. */
  set(number: string, state: FakeVonageRegistration): void {
    if (state === 'unregistered') this.states.delete(number);
    else this.states.set(number, state);
  }

  campaignIdOf(state: keyof typeof CAMPAIGN_STATUS): string {
    return state === 'approved' ? 'CAPPRV1' : 'CPENDG1';
  }

  /** The answer to a request under `/v1/10dlc/`, or undefined for another path. */
  answer(method: string, path: string, query: URLSearchParams, authorization: string | undefined): Answer | undefined {
    if (!path.startsWith('/v1/10dlc/')) return undefined;
    this.requests.push({ path, query, authorization });
    if (authorization !== this.basic()) return problem(401, 'Invalid credentials supplied', 'The 10DLC API takes Basic key:secret.');
    if (method !== 'GET') return problem(405, 'Method not allowed', 'Only GET is served here.');
    const invalid = [...query.keys()].find((key) => key !== 'filter' && (!['page', 'page_size'].includes(key) || !/^[1-9]\d*$/.test(query.get(key)!)));
    if (invalid) return problem(400, 'Bad Request', `Invalid query parameter ${invalid}.`);
    const page = Number(query.get('page') ?? 1);
    const pageSize = Number(query.get('page_size') ?? 10);
    const list = this.list(path);
    if (!list) return problem(404, 'Not Found', 'The requested resource does not exist, or you do not have access to it.');
    const items = list.items.slice((page - 1) * pageSize, page * pageSize);
    return { status: 200, body: { page, page_size: pageSize, total_pages: Math.max(1, Math.ceil(list.items.length / pageSize)), total_items: list.items.length, _embedded: { [list.key]: items } } };
  }

  private list(path: string): { key: string; items: object[] } | undefined {
    if (path === '/v1/10dlc/brands') return { key: 'brands', items: [{ brand_id: this.brandId, status: this.brandStatus, display_name: 'Clinic' }] };
    const campaigns = /^\/v1\/10dlc\/brands\/([^/]+)\/campaigns$/.exec(path);
    if (campaigns) {
      if (campaigns[1] !== this.brandId) return undefined;
      return { key: 'campaigns', items: (['approved', 'pending'] as const).map((state) => ({ campaign_id: this.campaignIdOf(state), brand_id: this.brandId, usecase: 'CUSTOMER_CARE', status: CAMPAIGN_STATUS[state] })) };
    }
    const numbers = /^\/v1\/10dlc\/brands\/([^/]+)\/campaigns\/([^/]+)\/numbers$/.exec(path);
    if (!numbers || numbers[1] !== this.brandId) return undefined;
    const state = (['approved', 'pending'] as const).find((candidate) => this.campaignIdOf(candidate) === numbers[2]);
    if (!state) return undefined;
    const linked = [...this.states].filter(([, held]) => held === state).map(([number]) => ({ number: number.replace(/^\+/, ''), country: 'US', status: LINK_STATUS[state] }));
    return { key: 'numbers', items: linked };
  }
}
