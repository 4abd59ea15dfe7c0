import { request as httpRequest } from 'node:http';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { expectProblem } from '../../support/helpers';
import { assignPastTheApi } from '../../support/client-run';
import { startStackWithClientAndAgent, uniqueName, type TestStack } from '../../support/stack';

/* Input PostgreSQL cannot store never reaches it, and an error that cannot heal is never retried forever. */
let stack: TestStack;
let token: string;
beforeAll(async () => ({ stack, token } = await startStackWithClientAndAgent('poison-user')));
afterAll(() => stack.stop());

const NUL = '\u0000';
const LONE_SURROGATE = '\ud800';

describe('strings the database cannot store are refused at the API with a 400 naming the field', () => {
  test.each([
    ['assign-agents ds_notes', 'POST', '/clients/c1/assign-agents', { agents: [{ agent: 'a1' }], ds_notes: `note${NUL}` }, 'ds_notes'],
    ['assign-agents agent id', 'POST', '/clients/c1/assign-agents', { agents: [{ agent: `a${NUL}1` }] }, 'agents.0.agent'],
    ['a client name', 'POST', '/clients', { _id: 'c-nul', name: `Ann${NUL}` }, 'name'],
    ['an agent name', 'POST', '/agents', { _id: 'a-nul', name: `Bob${NUL}` }, 'name'],
    ['a message text', 'POST', '/messages', { message_type: 'text', client: 'c1', text_message: `Hi${NUL}` }, 'text_message'],
    ['a message client_name', 'POST', '/messages', { message_type: 'text', client: 'c1', client_name: `A${NUL}`, text_message: 'Hi' }, 'client_name'],
    ['a lone surrogate in a text', 'POST', '/messages', { message_type: 'text', client: 'c1', text_message: `Hi${LONE_SURROGATE}` }, 'text_message'],
  ])('%s', async (_name, method, path, body, field) => {
    expectProblem(await stack.api(method, path, { token, body }), 400, `Invalid ${field}: must not contain NUL characters or unpaired surrogates`);
  });

  test('nothing of such a request is stored', async () => {
    expect(await stack.prisma.client.count({ where: { business: stack.business, id: 'c-nul' } })).toBe(0);
    expect(await stack.prisma.message.count({ where: { business: stack.business } })).toBe(0);
  });

  test('a NUL in the agent path segment of an unassignment is a 404, not a 500', async () => {
    expectProblem(await stack.api('DELETE', '/clients/c1/agents/a%001', { token }), 404, 'Agent a\u00001 is not assigned to this client');
  });

  test('a cursor whose id is not a message id is a 400', async () => {
    const cursor = Buffer.from(JSON.stringify([new Date().toISOString(), 'not-a-uuid'])).toString('base64url');
    expectProblem(await stack.api('GET', `/messages?cursor=${cursor}`, { token }), 400, 'Invalid cursor: pass next_cursor from the previous page');
  });
});

describe('headers that cannot be read one way only', () => {
  /** Sends `name` twice as separate header lines (fetch would join them into one). */
  const twice = (method: string, path: string, headers: Record<string, string | string[]>, body?: object) =>
    new Promise<{ status: number; detail: string }>((resolve, reject) => {
      const req = httpRequest(`${stack.baseUrl}${path}`, { method, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, detail: text ? JSON.parse(text).detail : undefined }));
      });
      req.on('error', reject);
      req.end(body ? JSON.stringify(body) : undefined);
    });

  test('two Authorization headers are a 401, never served as either user', async () => {
    const answer = await twice('GET', '/agents', { authorization: [`Bearer ${token}`, `Bearer ${stack.token('other-user')}`] });
    expect(answer).toEqual({ status: 401, detail: 'More than one Authorization header' });
  });

  test('two Idempotency-Key headers are a 400, not one key "k1, k2", and nothing is stored', async () => {
    const before = await stack.prisma.message.count({ where: { business: stack.business } });
    const answer = await twice(
      'POST',
      '/messages',
      { authorization: `Bearer ${token}`, 'idempotency-key': ['k1', 'k2'] },
      { message_type: 'text', client: 'c1', text_message: 'Hi' },
    );
    expect(answer).toEqual({ status: 400, detail: 'More than one Idempotency-Key header' });
    expect(await stack.prisma.message.count({ where: { business: stack.business } })).toBe(before);
  });
});

test("a request whose data the database refuses fails at once, and other tenants' requests keep being answered", async () => {
  // Input that got past the API another way (an older API, a direct update): the client's run must not retry it for ever.
  const poisoned = await Promise.all(
    Array.from({ length: 5 }, () => assignPastTheApi(stack, 'poison-user', 'c1', [{ agentId: `a${NUL}1`, dtUntil: new Date(Date.now() + 86_400_000).toISOString() }])),
  );

  const other = `/ext/v2/${uniqueName('healthy')}`;
  const otherToken = stack.token('healthy-user');
  await stack.api('POST', `/${other}/clients`, { token: otherToken, body: { _id: 'c1' } });
  await stack.api('POST', `/${other}/agents`, { token: otherToken, body: { _id: 'a1' } });
  const assigned = await stack.api('POST', `/${other}/clients/c1/assign-agents`, { token: otherToken, body: { agents: [{ agent: 'a1' }] } });
  expect(assigned.status).toBe(200);

  for (const failure of poisoned) {
    expect(failure).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((failure as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'InvalidData', nonRetryable: true });
    expect((failure as WorkflowUpdateFailedError).cause?.message).not.toContain(NUL);
  }
  expect(await stack.prisma.assignment.count({ where: { client: { business: stack.business } } })).toBe(0);
}, 60_000);
