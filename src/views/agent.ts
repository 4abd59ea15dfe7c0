export const agentView = (a: { id: string; name: string | null; createdAt: Date }) => ({
  _id: a.id,
  name: a.name,
  created_at: a.createdAt.toISOString(),
});
