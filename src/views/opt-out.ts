import type { OptOut } from '../generated/prisma/client';

/** One item of `GET /opt-outs`. */
export const optOutView = (o: OptOut) => ({
  phone: o.phone,
  sender: o.sender,
  channel: o.channel,
  status: o.status,
  source: o.source,
  detail: o.detail,
  opted_out_at: o.optedOutAt.toISOString(),
  opted_in_at: o.optedInAt?.toISOString() ?? null,
  updated_at: o.updatedAt.toISOString(),
});
