import type Telnyx from 'telnyx';
import { leastStatus, registrationKindOf, statusIn, type A2pRegistration, type RegistrationStatus } from '../../domain/number-registration';
import { telnyxSdk } from './sdk';

/*
 * A number's A2P registration as Telnyx's API tells it, through the SDK: a 10DLC number's assignment to a
 * campaign (`GET /10dlc/phone_number_campaigns/{number}`: ASSIGNED once done), the campaign
 * (`GET /10dlc/campaign/{id}`: MNO_PROVISIONED once the carriers took it) and its brand
 * (`GET /10dlc/brand/{id}`: OK); a toll-free number's verification request
 * (`GET /messaging_tollfree/verification/requests?phone_number=…`: Verified). Statuses in our words below;
 * a campaign counts as approved only once its number's assignment is done too.
 */

const CAMPAIGN: Readonly<Record<string, RegistrationStatus>> = {
  MNO_PROVISIONED: 'approved',
  TCR_PENDING: 'pending',
  TCR_ACCEPTED: 'pending',
  TELNYX_ACCEPTED: 'pending',
  MNO_PENDING: 'pending',
  MNO_ACCEPTED: 'pending',
  TCR_FAILED: 'rejected',
  TCR_SUSPENDED: 'rejected',
  TCR_EXPIRED: 'rejected',
  TELNYX_FAILED: 'rejected',
  MNO_REJECTED: 'rejected',
  MNO_PROVISIONING_FAILED: 'rejected',
};

const ASSIGNMENT: Readonly<Record<string, RegistrationStatus>> = {
  ASSIGNED: 'approved',
  PENDING_ASSIGNMENT: 'pending',
  PENDING_UNASSIGNMENT: 'pending',
  FAILED_ASSIGNMENT: 'rejected',
  FAILED_UNASSIGNMENT: 'rejected',
};

const BRAND: Readonly<Record<string, RegistrationStatus>> = { OK: 'approved', REGISTRATION_PENDING: 'pending', REGISTRATION_FAILED: 'rejected' };

const TOLL_FREE: Readonly<Record<string, RegistrationStatus>> = {
  Verified: 'approved',
  Rejected: 'rejected',
  'Waiting For Vendor': 'pending',
  'Waiting For Customer': 'pending',
  'Waiting For Telnyx': 'pending',
  'In Progress': 'pending',
};

async function orNotFound<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof telnyxSdk().NotFoundError) return null;
    throw error;
  }
}

async function tenDlc(client: Telnyx, number: string): Promise<A2pRegistration> {
  const assignment = await orNotFound(() => client.messaging10dlc.phoneNumberCampaigns.retrieve(number));
  if (!assignment) return { kind: '10dlc', brand: null, campaign: null, tollFree: null };
  const campaignId = assignment.telnyxCampaignId || assignment.campaignId;
  const campaign = await orNotFound(() => client.messaging10dlc.campaign.retrieve(campaignId));
  const brandId = campaign?.brandId || assignment.brandId;
  const brand = brandId ? await orNotFound(() => client.messaging10dlc.brand.retrieve(brandId)) : null;
  const campaignStatus = campaign ? leastStatus(statusIn(CAMPAIGN, campaign.campaignStatus), statusIn(ASSIGNMENT, assignment.assignmentStatus)) : 'unregistered';
  return {
    kind: '10dlc',
    brand: brandId ? { id: brandId, status: brand ? statusIn(BRAND, brand.status) : 'unregistered' } : null,
    campaign: { id: campaignId, useCase: campaign?.usecase ?? null, status: campaignStatus },
    tollFree: null,
  };
}

async function tollFree(client: Telnyx, number: string): Promise<A2pRegistration> {
  const page = await client.messagingTollfree.verification.requests.list({ phone_number: number, page: 1, page_size: 20 });
  // The newest request speaks for the number (a rejected one is followed by a new submission).
  const newest = [...page.records].sort((a, b) => Date.parse(b.updatedAt ?? b.createdAt ?? '') - Date.parse(a.updatedAt ?? a.createdAt ?? ''))[0];
  return { kind: 'toll_free', brand: null, campaign: null, tollFree: newest ? { status: statusIn(TOLL_FREE, newest.verificationStatus) } : null };
}

export function telnyxRegistration(client: Telnyx, number: string): Promise<A2pRegistration> {
  const kind = registrationKindOf(number);
  if (kind === 'toll_free') return tollFree(client, number);
  if (kind === '10dlc') return tenDlc(client, number);
  return Promise.resolve({ kind, brand: null, campaign: null, tollFree: null });
}
