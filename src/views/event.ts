import type { Event } from '../generated/prisma/client';

/** An event as the feed shows it and a webhook delivers it (the webhook's body is exactly this). */
export const eventView = (e: Event) => ({
  id: e.id,
  type: e.type,
  created_at: e.createdAt.toISOString(),
  business: e.business,
  data: e.data,
});
