import { randomUUID } from 'node:crypto';
import { ASSIGN_REQUEST_RETENTION_MS, ASSIGN_REQUEST_SWEEP_EVERY_MS, insertAssignRequest } from '../../src/db/assign-requests';
import { createPrisma, type Prisma } from '../../src/db/prisma';

/* A request's row (its user id and notes until settled) is deleted a week after it was written, by a later request's sweep. */
let prisma: Prisma;
beforeAll(() => {
  prisma = createPrisma(process.env.TEST_DATABASE_URL!, 2);
});
afterAll(() => prisma.$disconnect());

const business = `retention-${randomUUID().slice(0, 8)}`;
const scope = { business, ownerId: 'alice@example.com' };
const rowsOf = async () => (await prisma.assignRequest.findMany({ where: { business }, select: { workflowId: true } })).map((r) => r.workflowId).sort();

test('rows older than the retention are swept by a later request, at most once a minute per process', async () => {
  const t0 = new Date();
  await insertAssignRequest(prisma, `assign-agents/${business}/c1/first`, scope, 'notes', t0);
  await prisma.assignRequest.create({ data: { workflowId: `assign-agents/${business}/c1/old`, ...scope, notes: 'old notes', createdAt: new Date(t0.getTime() - ASSIGN_REQUEST_RETENTION_MS - 60_000) } });

  // Within the minute after the last sweep: the old row is still there.
  await insertAssignRequest(prisma, `assign-agents/${business}/c1/second`, scope, null, new Date(t0.getTime() + ASSIGN_REQUEST_SWEEP_EVERY_MS / 2));
  expect(await rowsOf()).toContain(`assign-agents/${business}/c1/old`);

  // The first request after the minute sweeps it, and only it.
  await insertAssignRequest(prisma, `assign-agents/${business}/c1/third`, scope, null, new Date(t0.getTime() + ASSIGN_REQUEST_SWEEP_EVERY_MS + 1));
  expect(await rowsOf()).toEqual([`assign-agents/${business}/c1/first`, `assign-agents/${business}/c1/second`, `assign-agents/${business}/c1/third`].sort());
});
