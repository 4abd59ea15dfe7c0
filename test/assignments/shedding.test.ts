import type { Client as TemporalClient } from '@temporalio/client';
import { insertAssignRequest, settleAssignRequest } from '../../src/db/assign-requests';
import type { RecordOutcome } from '../../src/db/assignments';
import { createPrisma, type Prisma } from '../../src/db/prisma';
import type { AssignAgentsResult } from '../../src/domain';
import { noteRunAnswered } from '../../src/starters/run-answers';
import { resultOfOutcome } from '../../src/use-cases/assignments/assign';
import { answerOrShed, SHED_RETRY_AFTER_SECONDS } from '../../src/use-cases/assignments/shed';
import { Invalid, NotFound, Unavailable } from '../../src/use-cases/errors';
import { databaseForFile } from '../support/database';
import { eventually, uniqueName } from '../support/helpers';

/*
 * An assign-agents request past its shedding point (src/use-cases/assignments/shed.ts), on PostgreSQL: its
 * `assign_requests` row decides between the run's answer and a 503, whichever commits first. The run is a
 * promise the test settles; the worker counts as seen when the test says a run answered lately.
 */

const db = databaseForFile();
/** The run's side: its recording transaction on a connection of its own, as the worker's is. */
let worker: Prisma;
beforeAll(() => (worker = createPrisma(process.env.TEST_DATABASE_URL!, 1)));
afterAll(() => worker.$disconnect());
const scope = { business: uniqueName('shedding'), ownerId: 'shedding-owner' };
const RECORDED = { outcome: 'recorded', assignments: [{ agentId: 'a1', dtUntil: '2030-01-01T00:00:00.000Z', workflowId: 'client/x' }] };

/** A request waiting on its run: its row pending, a run that answers when `answer` is called. */
async function waitingRequest() {
  const clientId = uniqueName('client');
  const requestKey = `assign-agents/${scope.business}/${clientId}/req`;
  await insertAssignRequest(db(), requestKey, scope, 'notes');
  let answer!: (result: AssignAgentsResult) => void;
  let fail!: (error: Error) => void;
  const run = new Promise<AssignAgentsResult>((resolve, reject) => ((answer = resolve), (fail = reject)));
  const gaveUp = new AbortController();
  const fromRow = (outcome: RecordOutcome) => resultOfOutcome(clientId, outcome);
  return { clientId, requestKey, run, answer, fail, gaveUp, fromRow };
}

/** A Temporal client that the API saw a run answer through `seenMsAgo` ago, or never. */
function temporal(seenMsAgo?: number): TemporalClient {
  const client = {} as TemporalClient;
  if (seenMsAgo !== undefined) noteRunAnswered(client, Date.now() - seenMsAgo);
  return client;
}

/** Until the recording's transaction holds the row (a withdrawal would skip it). */
async function untilLocked(requestKey: string): Promise<void> {
  await eventually(async () => {
    const [row] = await db().$queryRaw<{ locked: boolean }[]>`
      SELECT NOT EXISTS (SELECT 1 FROM assign_requests WHERE workflow_id = ${requestKey} FOR UPDATE SKIP LOCKED) AS locked`;
    return row.locked;
  }, 5_000, 20);
}

const rowOf = async (requestKey: string) => db().assignRequest.findUniqueOrThrow({ where: { workflowId: requestKey } });

test('a run that answers before the shedding point is the answer, and the row is left to the run', async () => {
  const request = await waitingRequest();
  const answered = answerOrShed({ prisma: db(), temporal: temporal(0) }, request.run, { ...request, shedAt: Date.now() + 2000, deadline: Date.now() + 5000 });
  request.answer({ client: 'c', assignments: [] });
  await expect(answered).resolves.toEqual({ client: 'c', assignments: [] });
  expect(await rowOf(request.requestKey)).toMatchObject({ outcome: null, ownerId: scope.ownerId, notes: 'notes' });
  expect(request.gaveUp.signal.aborted).toBe(false);
});

test('a worker seen lately but behind: at the shedding point the row is withdrawn and the answer is a 503 that says when to come back', async () => {
  const request = await waitingRequest();
  const answered = answerOrShed({ prisma: db(), temporal: temporal(0) }, request.run, { ...request, shedAt: Date.now() + 200, deadline: Date.now() + 5000 });
  const refusal = await answered.catch((error: unknown) => error);
  expect(refusal).toBeInstanceOf(Unavailable);
  expect(refusal).toMatchObject({ message: `The assignment service is behind; nothing was assigned: try again in ${SHED_RETRY_AFTER_SECONDS} s`, retryAfterSeconds: 5 });
  expect(await rowOf(request.requestKey)).toMatchObject({ outcome: { outcome: 'withdrawn' }, ownerId: null, notes: null });
  expect(request.gaveUp.signal.aborted).toBe(true);
});

test('a run that recorded the request first: at the shedding point the answer comes from the settled row, not a 503', async () => {
  const request = await waitingRequest();
  await worker.$transaction((tx) => settleAssignRequest(tx, request.requestKey, RECORDED));
  const answered = await answerOrShed({ prisma: db(), temporal: temporal(0) }, request.run, { ...request, shedAt: Date.now() + 200, deadline: Date.now() + 5000 });
  expect(answered).toEqual({ client: request.clientId, assignments: [{ agent: 'a1', dt_until: RECORDED.assignments[0].dtUntil, status: 'active', workflow_id: 'client/x' }] });
  expect(await rowOf(request.requestKey)).toMatchObject({ outcome: RECORDED });
  expect(request.gaveUp.signal.aborted).toBe(false);
});

test('a row the recording holds at the shedding point is looked at again a second later, and answered from it once recorded', async () => {
  const request = await waitingRequest();
  let recorded!: () => void;
  const recordingCommits = new Promise<void>((resolve) => (recorded = resolve));
  const recording = worker.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT workflow_id FROM assign_requests WHERE workflow_id = ${request.requestKey} FOR UPDATE`;
    await recordingCommits;
    await settleAssignRequest(tx, request.requestKey, RECORDED);
  });
  const shedAt = Date.now() + 200;
  await untilLocked(request.requestKey);
  const answered = answerOrShed({ prisma: db(), temporal: temporal(0) }, request.run, { ...request, shedAt, deadline: Date.now() + 5000 });
  setTimeout(recorded, 600);
  await expect(answered).resolves.toMatchObject({ client: request.clientId, assignments: [expect.objectContaining({ agent: 'a1' })] });
  await recording;
  expect(Date.now() - shedAt).toBeGreaterThanOrEqual(1000);
  expect(request.gaveUp.signal.aborted).toBe(false);
});

test('no worker seen within the last minute: nothing is withdrawn, and the request waits for its run until the deadline', async () => {
  for (const client of [temporal(), temporal(61_000)]) {
    const request = await waitingRequest();
    const deadline = Date.now() + 800;
    const answered = answerOrShed({ prisma: db(), temporal: client }, request.run, { ...request, shedAt: Date.now() + 100, deadline });
    setTimeout(() => request.fail(new Error('the run did not answer by the deadline')), 1000);
    await expect(answered).rejects.toThrow('the run did not answer by the deadline');
    expect(await rowOf(request.requestKey)).toMatchObject({ outcome: null, ownerId: scope.ownerId, notes: 'notes' });
    expect(request.gaveUp.signal.aborted).toBe(false);
  }
});

test.each([
  ['the client erased meanwhile', { outcome: 'clientNotFound' }, new NotFound('Client not found')],
  ['an agent no longer the caller\'s', { outcome: 'agentNotAuthorized', agentId: 'a9' }, new Invalid('Agent a9 not found or not authorized')],
] as const)('a settled row that says %s is answered as the run answers it', (_case, outcome, error) => {
  const answer = () => resultOfOutcome('c1', outcome as RecordOutcome);
  expect(answer).toThrow(error.message);
  expect(answer).toThrow(error.constructor as new (message: string) => Error);
});

test('a settled row with no answer of its own (withdrawn, expired) is not answered as a success', () => {
  for (const outcome of [{ outcome: 'withdrawn' }, { outcome: 'requestExpired' }] as RecordOutcome[]) expect(() => resultOfOutcome('c1', outcome)).toThrow(`Unexpected outcome ${outcome.outcome}`);
});
