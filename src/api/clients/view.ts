export const clientView = (c: { id: string; name: string | null; phone: string | null; createdAt: Date }) => ({
  _id: c.id,
  name: c.name,
  phone: c.phone,
  created_at: c.createdAt.toISOString(),
});
