import { insertAssignRequest, withdrawAssignRequest } from '../../../src/db/assign-requests';
import { recordAssignments } from '../../../src/db/assignments';
import { DEFAULT_DT_UNTIL } from '../../../src/domain';
import { eventually, startTestStack, uniqueName, type TestStack } from '../../support/stack';

/*
 * A worker that is there but behind: an assign-agents request is withdrawn and answered 503 with
 * Retry-After at the shedding point (1 s here, 10 s by default), not 504 at its 20 s deadline, and the
 * withdrawn request is never recorded, even when the worker gets to it later. (With no worker known to
 * poll at all the answer stays the 504 of without-worker.ts.)
 */
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

test('a request the worker is behind on is a prompt 503 with Retry-After that assigned nothing, and its retry after recovery assigns once', async () => {
  const { api } = await stack.startApi({ assignShedAfterMs: 1000 });
  const token = stack.token('behind-owner');
  const [clientId, first, second] = [uniqueName('client'), uniqueName('agent'), uniqueName('agent')];
  await api('POST', '/clients', { token, body: { _id: clientId } });
  for (const agent of [first, second]) await api('POST', '/agents', { token, body: { _id: agent } });
  // The worker answers: the API knows one polls.
  expect((await api('POST', `/clients/${clientId}/assign-agents`, { token, body: { agents: [{ agent: first }] } })).status).toBe(200);

  await stack.stopWorker();
  let shed;
  const began = Date.now();
  try {
    shed = await api('POST', `/clients/${clientId}/assign-agents`, { token, body: { agents: [{ agent: second }], ds_notes: 'first try' } });
  } finally {
    await stack.startWorker();
  }
  expect(Date.now() - began).toBeLessThan(5000);
  expect(shed.status).toBe(503);
  expect(shed.headers.get('retry-after')).toBe('5');
  expect(shed.body).toMatchObject({ type: '/problems/unavailable', detail: expect.stringContaining('nothing was assigned') });
  const withdrawn = await stack.prisma.assignRequest.findMany({ where: { workflowId: { contains: `/${clientId}/` }, outcome: { equals: { outcome: 'withdrawn' } } } });
  expect(withdrawn).toEqual([expect.objectContaining({ ownerId: null, notes: null })]);

  // The worker is back: the withdrawn update, still queued on the run, goes first and records nothing; the retry assigns.
  const retried = await api('POST', `/clients/${clientId}/assign-agents`, { token, body: { agents: [{ agent: second }], ds_notes: 'second try' } });
  expect(retried.status).toBe(200);
  expect(retried.body.assignments).toEqual([expect.objectContaining({ agent: second, status: 'active' })]);
  const listed = await api('GET', `/clients/${clientId}/agents`, { token });
  expect(listed.body.assignments.filter((a: { agent: string }) => a.agent === second)).toEqual([expect.objectContaining({ status: 'active', ds_notes: 'second try' })]);
  const created = await eventually(async () => {
    const events = await api('GET', '/events', { token });
    return events.body.events?.length ? events.body.events : undefined;
  });
  expect(created.filter((e: { type: string; data: { agent?: string } }) => e.type === 'assignment.created' && e.data.agent === second)).toHaveLength(1);
});

test('the request row decides: withdrawn first, the recording records nothing; recorded first, the withdrawal gets its outcome', async () => {
  const token = stack.token('row-owner');
  const [clientId, agent] = [uniqueName('client'), uniqueName('agent')];
  await stack.api('POST', '/clients', { token, body: { _id: clientId } });
  await stack.api('POST', '/agents', { token, body: { _id: agent } });
  const scope = { business: stack.business, ownerId: 'row-owner' };
  const input = (requestKey: string) => ({ business: stack.business, clientId, agents: [{ agentId: agent, dtUntil: DEFAULT_DT_UNTIL }], requestKey });

  const late = `assign-agents/${stack.business}/${clientId}/late`;
  await insertAssignRequest(stack.prisma, late, scope, 'notes');
  expect(await withdrawAssignRequest(stack.prisma, late)).toEqual({ state: 'withdrawn' });
  expect(await recordAssignments(stack.prisma, input(late))).toEqual({ outcome: 'withdrawn' });
  expect((await stack.api('GET', `/clients/${clientId}/agents`, { token })).body.assignments).toEqual([]);

  const recorded = `assign-agents/${stack.business}/${clientId}/recorded`;
  await insertAssignRequest(stack.prisma, recorded, scope, null);
  const outcome = await recordAssignments(stack.prisma, input(recorded));
  expect(outcome).toMatchObject({ outcome: 'recorded', assignments: [expect.objectContaining({ agentId: agent })] });
  expect(await withdrawAssignRequest(stack.prisma, recorded)).toEqual({ state: 'settled', outcome: JSON.parse(JSON.stringify(outcome)) });

  expect(await withdrawAssignRequest(stack.prisma, `assign-agents/${stack.business}/${clientId}/never`)).toEqual({ state: 'missing' });
});
