export const clientView = (c: { id: string; name: string | null; phone: string | null; timezone: string | null; createdAt: Date }) => ({
  _id: c.id,
  name: c.name,
  phone: c.phone,
  timezone: c.timezone,
  created_at: c.createdAt.toISOString(),
});
