import type { A2pRegistration as Row } from '../generated/prisma/client';
import { sendVerdict, type A2pRegistration, type RegistrationKind, type RegistrationStatus } from '../domain/number-registration';

/* A number's A2P registration: read back from its row, and as the operator API and the events show it. */

const status = (value: string | null): RegistrationStatus => (value ?? 'unknown') as RegistrationStatus;

/** The registration a row holds. */
export function registrationOfRow(row: Row): A2pRegistration {
  return {
    kind: row.kind as RegistrationKind,
    brand: row.brandId !== null || row.brandStatus !== null ? { id: row.brandId, status: status(row.brandStatus) } : null,
    campaign: row.campaignId !== null || row.campaignStatus !== null ? { id: row.campaignId, useCase: row.campaignUseCase, status: status(row.campaignStatus) } : null,
    tollFree: row.tollFreeStatus !== null ? { status: status(row.tollFreeStatus) } : null,
  };
}

/**
 * `registration` of a business number's answer: what the carrier said, and whether the number may send
 * A2P texts now (`can_send`, with `reason` when it may not, or when the carrier could not tell). Null
 * when it was never read.
 */
export function registrationView(number: string, row: Row | null) {
  if (!row) return null;
  const registration = registrationOfRow(row);
  const verdict = sendVerdict(number, registration);
  return {
    kind: registration.kind,
    brand: registration.brand,
    campaign: registration.campaign && { id: registration.campaign.id, use_case: registration.campaign.useCase, status: registration.campaign.status },
    toll_free: registration.tollFree,
    can_send: verdict.allowed,
    reason: verdict.allowed ? (verdict.warning ?? null) : verdict.reason,
    read_at: row.readAt.toISOString(),
    changed_at: row.changedAt.toISOString(),
  };
}
