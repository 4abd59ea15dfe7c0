import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { loadConfig } from '../../../src/config/index';
import { findTemporalCli } from '../../../src/stack/temporal-cli';
import { ASSIGNMENT_DT_UNTIL, MESSAGE_STATUS, RECONCILE_WORKFLOW, type ReconcileResult } from '../../../src/domain';
import { insertScheduledMessage } from '../../../src/db/messages';
import { newMessageOf, sendMessageRequest } from '../../../src/use-cases/messages/accept';
import { createReconcileActivities } from '../../../src/activities/housekeeping/reconcile';
import { MockActivityEnvironment } from '@temporalio/testing';
import { tenantApi } from '../../support/client-run';
import { eventually, waitForStatus } from '../../support/helpers';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';
import { untilListedEnded } from '../../support/listed-ended';

/*
 * What an operator does in the Temporal UI, done with the Temporal CLI (the same API calls): Request
 * Cancellation and Terminate on the service's workflows leave PostgreSQL consistent, and the runs say
 * what they are doing without reading code.
 *
 * Four tests run side by side, first (jest starts a describe's concurrent tests together at the place of
 * the first): the cancelled client's run, on the suite's business before any other test's run there ends,
 * and the two Terminate tests that wait for a clock and the unconfirmed start's, each on a business of its
 * own, since a recent pass restarts and counts every run of its business that ended lately. The others run
 * alone after them, in file order, on the suite's business, whose rows their passes count.
 */
let stack: TestStack;
let token: string;
let cli: string;
beforeAll(async () => {
  stack = await startTestStack();
  token = stack.token('operator-suite-user');
  cli = (await findTemporalCli(loadConfig()))!;
  await stack.api('POST', '/clients', { token, body: { _id: 'c1', phone: '+14155550100' } });
  for (const _id of ['a1', 'a2', 'a3', 'a4', 'a5']) await stack.api('POST', '/agents', { token, body: { _id } });
});
afterAll(() => stack.stop());

const run = promisify(execFile);
const temporalCli = (...args: string[]) => run(cli, [...args, '--address', process.env.TEST_TEMPORAL_ADDRESS!]);

async function assign(agent: string, dtUntil: string, client = 'c1') {
  const res = await stack.api('POST', `/clients/${client}/assign-agents`, { token, body: { agents: [{ agent, dt_until: dtUntil }] } });
  expect(res.status).toBe(200);
  return res.body.assignments[0].workflow_id as string;
}

// One business a pass: the suites share PostgreSQL, and another suite's rows are its own business.
const reconcile = (graceMs = 0, pass: { full?: boolean; windowMs?: number } = {}, business = stack.business): Promise<ReconcileResult> =>
  stack.temporal.workflow.execute(RECONCILE_WORKFLOW, { taskQueue: stack.taskQueue, workflowId: uniqueName('reconcile'), args: [{ graceMs, business, ...pass }] });
// What the every-two-minutes Schedule runs: rows changed lately and runs that ended abnormally lately.
const recentPass = { full: false };

const assignmentRow = (agent: string, business = stack.business) =>
  stack.prisma.assignment.findFirstOrThrow({ where: { client: { business, id: 'c1' }, agent: { id: agent } }, orderBy: { createdAt: 'desc' } });

/** A business of its own with client c1, for a test that runs beside another. */
async function ownBusiness(prefix: string) {
  const business = uniqueName(prefix);
  const api = tenantApi(stack, token, business);
  expect((await api('POST', '/clients', { _id: 'c1', phone: '+14155550100' })).status).toBe(201);
  return { business, api };
}

test.concurrent('Request Cancellation on a client\'s run stops the run and ends no assignment: the reconciler gives the rows a run again', async () => {
  // A client of its own: the recent passes of the tests below count c1's rows.
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c-cancel' } })).status).toBe(201);
  const workflowId = await assign('a1', '2031-01-01', 'c-cancel');
  const row = () => stack.prisma.assignment.findFirstOrThrow({ where: { client: { business: stack.business, id: 'c-cancel' }, agent: { id: 'a1' } } });
  await temporalCli('workflow', 'cancel', '--workflow-id', workflowId);
  await eventually(async () => ((await stack.temporal.workflow.getHandle(workflowId).describe()).status.name === 'CANCELLED' ? true : undefined));
  expect(await row()).toMatchObject({ status: 'active', endedBy: null });
  const listed = await stack.api('GET', '/clients/c-cancel/agents', { token });
  expect(listed.body.assignments.map((a: { agent: string }) => a.agent)).toEqual(['a1']);

  await eventually(async () => {
    await reconcile(0, recentPass);
    return (await stack.temporal.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING' ? true : undefined;
  });
  expect(await row()).toMatchObject({ status: 'active' });
});

test('Request Cancellation on a waiting message cancels it, by an operator, and it is never sent', async () => {
  const sent = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Hi', delay: '1h' } });
  await temporalCli('workflow', 'cancel', '--workflow-id', sent.body.workflow_id);
  const message = await waitForStatus(stack.api, token, sent.body._id, 'canceled');
  expect(message.canceled_at).toEqual(expect.any(String));
  expect(message.canceled_by).toEqual({ actor: 'operator', reason: 'operator' });
  expect(await stack.prisma.message.findUniqueOrThrow({ where: { id: sent.body._id } })).toMatchObject({ canceledBy: 'operator' });
  // The row changes inside the run's last task; the run closes as that task completes.
  await eventually(async () => ((await stack.temporal.workflow.getHandle(sent.body.workflow_id).describe()).status.name === 'CANCELLED' ? true : undefined));
  await eventually(async () => ((await stack.temporal.workflow.getHandle(sent.body.workflow_id).describe()).typedSearchAttributes.get(MESSAGE_STATUS) === 'canceled' ? true : undefined));
});

test.concurrent('after a Terminate, the reconciler gives an active assignment its timer back, which expires it on time', async () => {
  const { business, api } = await ownBusiness('ui-terminate');
  expect((await api('POST', '/agents', { _id: 'a2' })).status).toBe(201);
  const dtUntil = new Date(Date.now() + 4000).toISOString();
  const assigned = await api('POST', '/clients/c1/assign-agents', { agents: [{ agent: 'a2', dt_until: dtUntil }] });
  expect(assigned.status).toBe(200);
  const workflowId: string = assigned.body.assignments[0].workflow_id;
  await temporalCli('workflow', 'terminate', '--workflow-id', workflowId, '--reason', 'operator test');
  await untilListedEnded(stack.temporal, workflowId);
  expect(await assignmentRow('a2', business)).toMatchObject({ status: 'active' });

  const result = await reconcile(0, recentPass, business);
  expect(result).toMatchObject({ full: false, assignmentsRestarted: 1 });
  expect((await stack.temporal.workflow.getHandle(workflowId).describe()).status.name).toBe('RUNNING');
  await eventually(async () => ((await assignmentRow('a2', business)).status === 'expired' ? true : undefined), 20_000);
});

test.concurrent('after a Terminate, the reconciler restarts an unsent message, which is sent once at send_at', async () => {
  const { business, api } = await ownBusiness('ui-message');
  const sent = await api('POST', '/messages', { message_type: 'text', client: 'c1', text_message: 'Hello', delay: '3s' });
  expect(sent.status).toBe(202);
  await temporalCli('workflow', 'terminate', '--workflow-id', sent.body.workflow_id);
  expect((await stack.prisma.message.findUniqueOrThrow({ where: { id: sent.body._id } })).status).toBe('scheduled');

  // Its start was confirmed: a recent pass finds it among the runs that ended abnormally, once visibility lists it so.
  await untilListedEnded(stack.temporal, sent.body.workflow_id);
  expect((await reconcile(0, recentPass, business)).messagesRestarted).toBe(1);
  const message = await waitForStatus((method, path) => api(method, path), token, sent.body._id, 'sent');
  expect(Date.parse(message.sent_at)).toBeGreaterThanOrEqual(Date.parse(sent.body.send_at));
  expect(await stack.prisma.logDelivery.count({ where: { messageId: sent.body._id } })).toBe(1);
  await eventually(async () => ((await stack.temporal.workflow.getHandle(sent.body.workflow_id).describe()).typedSearchAttributes.get(MESSAGE_STATUS) === 'sent' ? true : undefined));
});

test('a recent pass restarts the run of an old row that was terminated lately, and reads no row older than its window otherwise', async () => {
  const workflowId = await assign('a5', '2033-01-01');
  const sent = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Later', delay: '1h' } });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const oldRows = { full: false, windowMs: 1000 };
  expect(await reconcile(0, oldRows)).toMatchObject({ assignmentsChecked: 0, messagesChecked: 0 });

  await temporalCli('workflow', 'terminate', '--workflow-id', workflowId);
  await temporalCli('workflow', 'terminate', '--workflow-id', sent.body.workflow_id);
  const restarted = { assignments: 0, messages: 0 };
  const running = async (id: string) => (await stack.temporal.workflow.getHandle(id).describe()).status.name === 'RUNNING';
  // Visibility lags a little behind a Terminate: passes go on until both runs are back.
  await eventually(async () => {
    const pass = await reconcile(0, oldRows);
    expect(pass).toMatchObject({ full: false, assignmentsChecked: expect.any(Number) });
    expect(pass.assignmentsChecked + pass.messagesChecked).toBeLessThanOrEqual(2);
    restarted.assignments += pass.assignmentsRestarted;
    restarted.messages += pass.messagesRestarted;
    return (await running(workflowId)) && (await running(sent.body.workflow_id)) ? true : undefined;
  });
  expect(restarted).toEqual({ assignments: 1, messages: 1 });
});

test.concurrent('a recent pass checks only the messages whose start was never confirmed, and starts one whose request died after its insert', async () => {
  // A business of its own: the other tests' rows and runs stay out of this pass.
  const scope = { business: uniqueName('confirm'), ownerId: 'operator-suite-user' };
  const client = await stack.prisma.client.create({ data: { ...scope, id: 'c1', phone: '+14155550100' } });
  const accepted = await sendMessageRequest(stack.services, scope, { message_type: 'text', client: 'c1', text_message: 'Confirmed', delay: '1h' }, undefined);
  await eventually(async () => ((await stack.prisma.message.findUniqueOrThrow({ where: { id: accepted.message.id } })).startConfirmed ? true : undefined));
  // The row of a request whose process died between its insert and its start: stored, no run.
  const request = { client: { pk: client.pk, id: 'c1' }, phone: '+14155550100', name: null, text: 'Orphan', sendAt: new Date(Date.now() + 500), sendWindow: null, deferredUntil: null, fingerprint: {}, channel: 'sms', media: [], template: null, suggestions: [] };
  const { message: orphan } = await insertScheduledMessage(stack.prisma, scope, newMessageOf(request as never, { sender: null, idempotencyKey: null, requestHash: null }));

  const reconciler = createReconcileActivities({ prisma: stack.prisma, temporal: stack.temporal, taskQueue: stack.taskQueue });
  const pass = (await new MockActivityEnvironment().run(reconciler.reconcileOrphans, { graceMs: 0, business: scope.business, full: false })) as ReconcileResult;
  expect(pass).toMatchObject({ messagesChecked: 1, messagesRestarted: 1 });
  await eventually(async () => ((await stack.prisma.message.findUniqueOrThrow({ where: { id: orphan.id } })).status === 'sent' ? true : undefined), 20_000);
  // A full pass still reads every row, the confirmed one too.
  const full = (await new MockActivityEnvironment().run(reconciler.reconcileOrphans, { graceMs: 0, business: scope.business, full: true })) as ReconcileResult;
  expect(full).toMatchObject({ messagesChecked: 1, messagesRestarted: 0 });
});

test('the reconciler leaves alone rows changed within its grace period, and runs it restarted', async () => {
  const workflowId = await assign('a3', '2032-01-01');
  await temporalCli('workflow', 'terminate', '--workflow-id', workflowId);
  await reconcile(60_000);
  expect((await stack.temporal.workflow.getHandle(workflowId).describe()).status.name).toBe('TERMINATED');

  await reconcile();
  const restarted = await stack.temporal.workflow.getHandle(workflowId).describe();
  expect(restarted.status.name).toBe('RUNNING');
  expect(await reconcile()).toMatchObject({ assignmentsRestarted: 0, messagesRestarted: 0 });
  expect((await stack.temporal.workflow.getHandle(workflowId).describe()).runId).toBe(restarted.runId);
});

test('a client\'s run shows its earliest dt_until as a search attribute, also after a re-assignment', async () => {
  // A client of its own: the run shows the earliest date of all its client's assignments.
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c4' } })).status).toBe(201);
  const workflowId = await assign('a4', '2031-05-01T00:00:00Z', 'c4');
  const dtUntilOf = async () => (await stack.temporal.workflow.getHandle(workflowId).describe()).typedSearchAttributes.get(ASSIGNMENT_DT_UNTIL)?.toISOString();
  await eventually(async () => ((await dtUntilOf()) === '2031-05-01T00:00:00.000Z' ? true : undefined));
  await assign('a4', '2032-07-01T00:00:00Z', 'c4');
  await eventually(async () => ((await dtUntilOf()) === '2032-07-01T00:00:00.000Z' ? true : undefined));
  const found = await eventually(async () => {
    const ids: string[] = [];
    for await (const r of stack.temporal.workflow.list({ query: `BusinessName = '${stack.business}' AND AssignmentDtUntil BETWEEN '2032-06-30T00:00:00Z' AND '2032-07-02T00:00:00Z'` })) ids.push(r.workflowId);
    return ids.length ? ids : undefined;
  });
  expect(found).toEqual([workflowId]);
});
