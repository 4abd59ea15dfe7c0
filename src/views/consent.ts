import type { ClientConsent } from '../generated/prisma/client';

/** A client's consent to a channel: `GET /clients/{_id}/consents`. */
export const consentView = (c: ClientConsent) => ({
  channel: c.channel,
  source: c.source,
  at: c.at.toISOString(),
  updated_at: c.updatedAt.toISOString(),
});
