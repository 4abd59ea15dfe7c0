import { leastStatus, registrationKindOf, statusIn, type A2pRegistration, type RegistrationStatus } from '../../domain/number-registration';

/*
 * A number's A2P registration as Vonage's 10DLC API ("10DLC Brand and Campaign Provisioning",
 * https://api-eu.vonage.com/v1/10dlc, Basic key:secret) tells it, through the SDK's own HTTP client
 * (@vonage/server-client; the SDK has no 10DLC module): the account's brands (`GET /brands`), each
 * brand's campaigns (`GET /brands/{brand_id}/campaigns`) and each campaign's linked numbers
 * (`GET /brands/{brand_id}/campaigns/{campaign_id}/numbers`), until the one holding the number. A
 * campaign is ACTIVE once Vonage and the carriers took it; a link is only as done as its own status.
 * Toll-free verification is not in that API: its status stays unknown (the send goes, with a warning).
 */

export const VONAGE_10DLC_HOST = 'https://api-eu.vonage.com';

/*
 * The words below are the ones Vonage documents, each table with its source; any other word reads
 * `unknown` (the send goes, with a warning). The OpenAPI spec: Vonage's api-specification,
 * `definitions/10dlc.yml` 1.0.15 (read in the fork elishaikatz/api-specification at 9b90a48f5bba; the live
 * reference, developer.vonage.com/en/api/10dlc, is 1.0.34 and could not be read in full).
 */

const BRAND: Readonly<Record<string, RegistrationStatus>> = {
  // The spec's brand `status`: ACTIVE, or DELETED once deleted (deleteBrand). An active campaign needed the
  // brand verified or vetted, so ACTIVE is as approved as the brand gets in this field.
  ACTIVE: 'approved',
  DELETED: 'rejected',
  // The spec's IdentityStatus (TCR's verification of the brand), should `status` carry it.
  VERIFIED: 'approved',
  VETTED_VERIFIED: 'approved',
  SELF_DECLARED: 'approved',
  UNVERIFIED: 'rejected',
};

const CAMPAIGN: Readonly<Record<string, RegistrationStatus>> = {
  // The spec's CampaignStatus.
  ACTIVE: 'approved',
  EXPIRED: 'rejected',
  // The statuses Vonage's dashboard shows ("10DLC - Update - Campaigns new statuses", api.support.vonage.com
  // article 7144196019868), in the tables' form (`word`).
  PENDING_REVIEW: 'pending',
  UPDATES_REQUIRED: 'pending',
  CARRIERS_REVIEW: 'pending',
  // Active until the paid period ends.
  PENDING_CANCELLATION: 'approved',
  CANCELED: 'rejected',
  SUSPENDED: 'rejected',
  TERMINATED: 'rejected',
  REJECTED: 'rejected',
};

/** The spec's NumberStatus, a number's link to its campaign; its fourth value, UNKNOWN, reads unknown. */
const LINK: Readonly<Record<string, RegistrationStatus>> = {
  APPROVED: 'approved',
  PENDING: 'pending',
  REJECTED: 'rejected',
};

/** Vonage writes a status as words too (`Pending Review`): in the tables' form, `PENDING_REVIEW`. */
const word = (status: unknown) => (typeof status === 'string' ? status.trim().toUpperCase().replace(/[\s-]+/g, '_') : status);

/** What the reader needs of the SDK's client: a GET answering `{ data }`, authenticated as the client is. */
export interface TenDlcGet {
  sendGetRequest<T>(url: string, queryParams?: Record<string, unknown>): Promise<{ data: T }>;
}

type Listed<K extends string, T> = { total_pages?: number; _embedded?: Partial<Record<K, T[]>> };
interface Brand { brand_id?: string; status?: string }
interface Campaign { campaign_id?: string; usecase?: string; status?: string }
interface LinkedNumber { number?: string; status?: string }

const PAGE_SIZE = 100;
/** Pages read of each list: an account holds a handful of brands and campaigns, a campaign some hundred numbers. */
const MAX_PAGES = 20;

async function listed<K extends string, T>(client: TenDlcGet, url: string, key: K): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const { data } = await client.sendGetRequest<Listed<K, T>>(url, { page, page_size: PAGE_SIZE });
    items.push(...(data?._embedded?.[key] ?? []));
    if (!(page < (data?.total_pages ?? 1))) break;
  }
  return items;
}

async function tenDlc(client: TenDlcGet, host: string, number: string): Promise<A2pRegistration> {
  const digits = number.replace(/^\+/, '');
  const brandsUrl = `${host}/v1/10dlc/brands`;
  for (const brand of await listed<'brands', Brand>(client, brandsUrl, 'brands')) {
    if (!brand.brand_id) continue;
    const campaignsUrl = `${brandsUrl}/${encodeURIComponent(brand.brand_id)}/campaigns`;
    for (const campaign of await listed<'campaigns', Campaign>(client, campaignsUrl, 'campaigns')) {
      if (!campaign.campaign_id) continue;
      const numbers = await listed<'numbers', LinkedNumber>(client, `${campaignsUrl}/${encodeURIComponent(campaign.campaign_id)}/numbers`, 'numbers');
      const link = numbers.find((held) => held.number?.replace(/^\+/, '') === digits);
      if (!link) continue;
      return {
        kind: '10dlc',
        brand: { id: brand.brand_id, status: statusIn(BRAND, word(brand.status)) },
        campaign: { id: campaign.campaign_id, useCase: campaign.usecase ?? null, status: leastStatus(statusIn(CAMPAIGN, word(campaign.status)), statusIn(LINK, word(link.status))) },
        tollFree: null,
      };
    }
  }
  return { kind: '10dlc', brand: null, campaign: null, tollFree: null };
}

export function vonageRegistration(client: TenDlcGet, host: string, number: string): Promise<A2pRegistration> {
  const kind = registrationKindOf(number);
  if (kind === '10dlc') return tenDlc(client, host.replace(/\/+$/, ''), number);
  if (kind === 'toll_free') return Promise.resolve({ kind, brand: null, campaign: null, tollFree: { status: 'unknown' } });
  return Promise.resolve({ kind, brand: null, campaign: null, tollFree: null });
}
