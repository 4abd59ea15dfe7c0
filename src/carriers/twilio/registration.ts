import type twilio from 'twilio';
import { registrationKindOf, statusIn, type A2pRegistration, type RegistrationStatus } from '../../domain/number-registration';

/*
 * A number's A2P registration as Twilio's Messaging API tells it (messaging.twilio.com/v1), through the
 * SDK: a 10DLC number sends A2P only from a Messaging Service that holds it (`/Services/{MG}/PhoneNumbers`)
 * and whose US A2P campaign (`/Services/{MG}/Compliance/Usa2p`) is VERIFIED, of a brand
 * (`/a2p/BrandRegistrations/{BN}`) APPROVED. A toll-free number needs its verification
 * (`/Tollfree/Verifications?TollfreePhoneNumberSid=PN…`) TWILIO_APPROVED. Statuses in our words below.
 */

const BRAND: Readonly<Record<string, RegistrationStatus>> = {
  APPROVED: 'approved',
  PENDING: 'pending',
  IN_REVIEW: 'pending',
  FAILED: 'rejected',
  SUSPENDED: 'rejected',
  DELETION_PENDING: 'rejected',
  DELETION_FAILED: 'rejected',
};

const CAMPAIGN: Readonly<Record<string, RegistrationStatus>> = {
  VERIFIED: 'approved',
  PENDING: 'pending',
  IN_PROGRESS: 'pending',
  FAILED: 'rejected',
  SUSPENDED: 'rejected',
  EXPIRED: 'rejected',
};

const TOLL_FREE: Readonly<Record<string, RegistrationStatus>> = {
  TWILIO_APPROVED: 'approved',
  PENDING_REVIEW: 'pending',
  IN_REVIEW: 'pending',
  TWILIO_REJECTED: 'rejected',
};

/** The tables' words are upper case; Twilio's are compared whatever their case. */
const upper = (word: unknown) => (typeof word === 'string' ? word.toUpperCase() : word);

/** Services looked through when the number names none: an account holds a handful. */
const SERVICES_LIMIT = 50;

/** The Messaging Service holding `number`: the configured one when it does, else the first of the account's that does. */
async function serviceHolding(client: twilio.Twilio, number: string, serviceSid: string | undefined): Promise<string | null> {
  const listed = (await client.messaging.v1.services.list({ limit: SERVICES_LIMIT })).map((service) => service.sid);
  const candidates = serviceSid && listed.includes(serviceSid) ? [serviceSid, ...listed.filter((sid) => sid !== serviceSid)] : listed;
  for (const sid of candidates) {
    const numbers = await client.messaging.v1.services(sid).phoneNumbers.list({ limit: 1000 });
    if (numbers.some((held) => held.phoneNumber === number)) return sid;
  }
  return null;
}

async function tenDlc(client: twilio.Twilio, number: string, serviceSid: string | undefined): Promise<A2pRegistration> {
  const none: A2pRegistration = { kind: '10dlc', brand: null, campaign: null, tollFree: null };
  const service = await serviceHolding(client, number, serviceSid);
  if (!service) return none;
  const [campaign] = await client.messaging.v1.services(service).usAppToPerson.list({ limit: 1 });
  if (!campaign) return none;
  const brand = campaign.brandRegistrationSid ? await client.messaging.v1.brandRegistrations(campaign.brandRegistrationSid).fetch() : null;
  return {
    kind: '10dlc',
    brand: brand && { id: brand.sid, status: statusIn(BRAND, upper(brand.status)) },
    campaign: { id: campaign.campaignId ?? campaign.sid, useCase: campaign.usAppToPersonUsecase ?? null, status: statusIn(CAMPAIGN, upper(campaign.campaignStatus)) },
    tollFree: null,
  };
}

async function tollFree(client: twilio.Twilio, number: string): Promise<A2pRegistration> {
  const [owned] = await client.incomingPhoneNumbers.list({ phoneNumber: number, limit: 1 });
  const verifications = owned ? await client.messaging.v1.tollfreeVerifications.list({ tollfreePhoneNumberSid: owned.sid, limit: 20 }) : [];
  // The newest verification speaks for the number (a rejected one is followed by a new submission).
  const newest = verifications.sort((a, b) => (b.dateUpdated?.getTime() ?? 0) - (a.dateUpdated?.getTime() ?? 0))[0];
  return { kind: 'toll_free', brand: null, campaign: null, tollFree: newest ? { status: statusIn(TOLL_FREE, upper(newest.status)) } : null };
}

export function twilioRegistration(client: twilio.Twilio, number: string, serviceSid: string | undefined): Promise<A2pRegistration> {
  const kind = registrationKindOf(number);
  if (kind === 'toll_free') return tollFree(client, number);
  if (kind === '10dlc') return tenDlc(client, number, serviceSid);
  return Promise.resolve({ kind, brand: null, campaign: null, tollFree: null });
}
