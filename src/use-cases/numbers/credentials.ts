import type { BusinessNumber } from '../../generated/prisma/client';
import type { CarrierCredentials, NumberAccount } from '../../carriers/numbers';
import type { SecretBox } from '../../secrets/secret-box';

/** What a number's sealed credentials are bound to: opened under another business or number, they do not authenticate. */
export const credentialsPurpose = (business: string, number: string) => `carrier-credentials:${business}:${number}`;

export function sealCredentials(secrets: SecretBox, business: string, number: string, credentials: CarrierCredentials): string {
  return secrets.seal(JSON.stringify(credentials), credentialsPurpose(business, number));
}

/** The registration as the carriers need it, its credentials opened. */
export function numberAccountOf(secrets: SecretBox, row: BusinessNumber): NumberAccount {
  return {
    id: row.id,
    business: row.business,
    number: row.number,
    messagingServiceSid: row.messagingServiceSid,
    rcsAgent: row.rcsAgent,
    retired: row.activeSlot === null,
    updatedAt: row.updatedAt,
    credentials: row.credentials === null ? null : (JSON.parse(secrets.open(row.credentials, credentialsPurpose(row.business, row.number))) as CarrierCredentials),
  };
}
