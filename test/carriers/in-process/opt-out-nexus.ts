import { startNexusCaller, type NexusCaller } from '../../support/nexus';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';
import { createTestCarrier, TEST_PUBLIC_BASE_URL } from '../../support/test-carrier';

/** Nexus `sendMessage` refuses an opted-out number exactly as POST /messages does, storing nothing. */
const carrier = createTestCarrier();
let stack: TestStack;
let caller: NexusCaller;

beforeAll(async () => {
  stack = await startTestStack({ carrier, env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL } });
  caller = await startNexusCaller({ taskQueue: stack.taskQueue });
});
afterAll(async () => {
  await caller?.stop();
  await stack?.stop();
});

test('an opted-out number is the same 409 through Nexus as over HTTP, and nothing is stored', async () => {
  const phone = '+14155557301';
  const origin = stack.baseUrl.replace(/\/ext\/v2\/.*$/, '');
  const stop = await carrier.post(origin, `/providers/${carrier.name}/inbound`, { kind: 'inbound', ref: uniqueName('in'), from: phone, to: carrier.sender, text: 'STOP' });
  expect(stop.status).toBe(200);
  const body = { message_type: 'text', client_phone: phone, text_message: 'Hi' };
  const http = await stack.api('POST', '/messages', { token: stack.token('user-1'), body });
  const [outcome] = await caller.call([{ operation: 'sendMessage', input: { business: stack.business, user: 'user-1', ...body } }]);
  const { instance: _instance, ...problem } = http.body;
  expect(problem).toEqual({ type: '/problems/conflict', title: 'Conflict', status: 409, detail: 'Recipient has opted out of text messages' });
  expect('failed' in outcome && outcome.failed.problem).toEqual(problem);
  expect(await stack.prisma.message.count({ where: { phone, business: stack.business } })).toBe(0);
});
