import { startTestStack, type TestStack } from '../../support/stack';
import { expectProblem, waitForStatus } from '../../support/helpers';
import { temporalTextOf, workflowIdsOfBusiness } from '../../support/history';

/*
 * What a user typed that may be personal — the notes of an assignment, the user id of the token (often
 * an e-mail address), a client's phone and name, a message's text — stays in PostgreSQL. Temporal's
 * ids, inputs, results, search attributes, memos and summaries carry ids and dates only.
 */

const USER = 'ada.lovelace+crm@example.com';
const SSN = '078-05-1120';
const NOTE_PHONE = '+1 415 555 0199';
const NOTES = `Called Ada Lovelace; SSN ${SSN}; call back on ${NOTE_PHONE}`;
const PHONE = '+14155550123';
const TEXT = 'Your appointment with Dr. Babbage is confirmed';

let stack: TestStack;
let token: string;

beforeAll(async () => {
  stack = await startTestStack();
  token = stack.token(USER);
  await stack.api('POST', '/clients', { token, body: { _id: 'c1', name: 'Ada Lovelace', phone: PHONE } });
  for (const _id of ['a1', 'a2']) await stack.api('POST', '/agents', { token, body: { _id } });
});
afterAll(() => stack.stop());

/** Every workflow of the suite's business, as the text Temporal keeps of it. */
async function everythingInTemporal(atLeast: number): Promise<string> {
  const ids = await workflowIdsOfBusiness(stack.temporal, stack.business, atLeast);
  return (await Promise.all(ids.map((id) => temporalTextOf(stack.temporal, id)))).join('\n');
}

/** The forms a value can take in a workflow id or a JSON payload. */
const spellings = (value: string) => [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)];

test('ds_notes and the user id reach PostgreSQL and the answer, never Temporal', async () => {
  const first = await stack.api('POST', '/clients/c1/assign-agents', {
    token,
    body: { agents: [{ agent: 'a1' }, { agent: 'a2', dt_until: '2099-01-01' }], ds_notes: NOTES },
  });
  expect(first.status).toBe(200);
  expect(first.body).toEqual({ client: 'c1', ds_notes: NOTES, assignments: expect.any(Array) });
  // Re-assigning updates the active rows (and their notes) through the same path.
  const again = await stack.api('POST', '/clients/c1/assign-agents', { token, body: { agents: [{ agent: 'a1' }], ds_notes: `${NOTES} (again)` } });
  expect(again.body.ds_notes).toBe(`${NOTES} (again)`);
  // A rejected request carries its notes too, and fails inside its workflow.
  expectProblem(
    await stack.api('POST', '/clients/c1/assign-agents', { token, body: { agents: [{ agent: 'nobody' }], ds_notes: NOTES } }),
    400,
    'Agent nobody not found or not authorized',
  );
  const listed = await stack.api('GET', '/clients/c1/agents', { token });
  expect(listed.body.assignments.map((a: { ds_notes: string }) => a.ds_notes).sort()).toEqual([NOTES, `${NOTES} (again)`]);

  // What waited in PostgreSQL for the workflows is settled: the outcome stays, the user id and notes do not.
  const requests = await stack.prisma.assignRequest.findMany({ where: { business: stack.business } });
  expect(requests).toHaveLength(3);
  for (const request of requests) expect(request).toEqual(expect.objectContaining({ ownerId: null, notes: null, outcome: expect.any(Object) }));

  const message = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: TEXT } });
  expect(message.status).toBe(202);
  await waitForStatus(stack.api, token, message.body._id, 'sent');

  // The client's run (its three requests, two clocks) and the message's run.
  const temporal = await everythingInTemporal(2);
  expect(temporal).toContain('c1');
  for (const secret of [SSN, NOTE_PHONE, 'Lovelace', USER, PHONE, TEXT].flatMap(spellings)) expect(temporal).not.toContain(secret);
  for (const assignment of first.body.assignments) expect(assignment.workflow_id).not.toContain('example.com');
});

test('an assignment whose workflow id still ends in the user id (made before this scheme): re-assigning moves its clock to the client\'s run', async () => {
  const business = `${stack.business}-legacy`;
  const at = (path: string) => `//ext/v2/${business}${path}`;
  await stack.api('POST', at('/clients'), { token, body: { _id: 'c1' } });
  await stack.api('POST', at('/agents'), { token, body: { _id: 'a1' } });
  const first = await stack.api('POST', at('/clients/c1/assign-agents'), { token, body: { agents: [{ agent: 'a1', dt_until: '2099-01-01' }] } });
  expect(first.status).toBe(200);

  // A row of data from before this scheme names a run whose id carries the user id.
  await stack.temporal.workflow.getHandle(first.body.assignments[0].workflow_id).terminate('replaced by a legacy run for the test');
  const row = await stack.prisma.assignment.findFirstOrThrow({ where: { status: 'active', client: { business, id: 'c1' } } });
  const legacyId = ['assignment', business, 'c1', 'a1', encodeURIComponent(USER)].join('/');
  await stack.prisma.assignment.update({ where: { id: row.id }, data: { workflowId: legacyId } });

  // Re-assigned, the pair's clock moves to the client's run.
  const again = await stack.api('POST', at('/clients/c1/assign-agents'), { token, body: { agents: [{ agent: 'a1', dt_until: '2100-01-01' }] } });
  expect(again.body.assignments).toEqual([expect.objectContaining({ workflow_id: first.body.assignments[0].workflow_id, dt_until: '2100-01-01T00:00:00.000Z' })]);
  expect(await stack.prisma.assignment.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ status: 'active', workflowId: first.body.assignments[0].workflow_id });

  const ended = await stack.api('DELETE', at('/clients/c1/agents/a1'), { token });
  expect(ended.body.workflow_id).toBe(first.body.assignments[0].workflow_id);
});
