import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { MESSAGE_STATUS } from '../../../src/domain';
import { eventually } from '../../support/helpers';
import { startTestStack, type TestStack } from '../../support/stack';

/**
 * A message its user cancels through the API ends its run as Temporal's Canceled — what the UI shows
 * for a canceled thing — with the row canceled by the user, once.
 */
let stack: TestStack;
let token: string;

beforeAll(async () => {
  stack = await startTestStack();
  token = stack.token('alice');
  await stack.api('POST', '/clients', { token, body: { _id: 'c-1', name: 'Ada', phone: '+14155550188' } });
});
afterAll(() => stack.stop());

async function cancelled(workflowId: string) {
  const handle = stack.temporal.workflow.getHandle(workflowId);
  const failure = await handle.result().then(
    (result) => result,
    (error) => error,
  );
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  const description = await handle.describe();
  expect(description.status.name).toBe('CANCELLED');
  expect(description.typedSearchAttributes.get(MESSAGE_STATUS)).toBe('canceled');
  return handle;
}

test.each([
  ['still waiting on its start delay', '1h'],
  ['due in seconds', '3s'],
])('POST …/cancel of a message %s ends its run as Canceled, the row canceled by its user', async (_name, delay) => {
  const res = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c-1', text_message: 'Cancel me', delay } });
  expect(res.status).toBe(202);
  const canceled = await stack.api('POST', `/messages/${res.body._id}/cancel`, { token });
  expect(canceled.status).toBe(200);

  const handle = await cancelled(res.body.workflow_id);
  const details = (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails;
  expect(details).toBe(`Message ${res.body._id}: canceled — canceled by its user`);
  const message = (await stack.api('GET', `/messages/${res.body._id}`, { token })).body;
  expect(message).toEqual(expect.objectContaining({ status: 'canceled', canceled_by: { actor: 'user', reason: 'api' }, dispatched_at: null }));
  const events = (await stack.api('GET', '/events?type=message.*&client=c-1&limit=100', { token })).body.events.filter((e: any) => e.data._id === res.body._id);
  expect(events.map((e: any) => e.type)).toEqual(['message.scheduled', 'message.canceled']);
  // Canceling again answers the same and changes nothing.
  await eventually(async () => (await stack.api('POST', `/messages/${res.body._id}/cancel`, { token })).status === 200);
  expect((await stack.api('GET', `/messages/${res.body._id}`, { token })).body).toEqual(message);
});
