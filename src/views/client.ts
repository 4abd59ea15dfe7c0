export const clientView = (c: { id: string; name: string | null; phone: string | null; timezone: string | null; createdAt: Date }) => ({
  _id: c.id,
  name: c.name,
  phone: c.phone,
  timezone: c.timezone,
  created_at: c.createdAt.toISOString(),
});

/** The `data` of a `client.deleted` event, besides its reason: which client, and when it was erased. */
export const deletedClientView = (c: { id: string; deletedAt: Date | null }) => ({
  client: c.id,
  deleted_at: c.deletedAt!.toISOString(),
});
