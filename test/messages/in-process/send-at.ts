import { startTestStack, type TestStack } from '../../support/stack';
import { expectProblem, waitForStatus } from '../../support/helpers';

/**
 * Issue 48: `send_at` schedules a message for an instant, and a misnamed field (`sendAt`, `delai`) is
 * a 400 instead of a text sent at once.
 */
let stack: TestStack;
let token: string;

const PHONE = '+14155550123';
const valid = { message_type: 'text', client_phone: PHONE, text_message: 'Hello' };

beforeAll(async () => {
  stack = await startTestStack();
  token = stack.token('alice');
});
afterAll(() => stack.stop());

const send = (body: unknown, headers: Record<string, string> = {}) => stack.api('POST', '/messages', { token, body, headers });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const count = () => stack.prisma.message.count({ where: { business: stack.business } });

test('the issue\'s request: send_at is scheduled for that instant, not sent', async () => {
  const res = await send({ ...valid, send_at: '2030-01-01T00:00:00Z' });
  expect(res.status).toBe(202);
  expect(res.body).toEqual(expect.objectContaining({ status: 'scheduled', send_at: '2030-01-01T00:00:00.000Z' }));
  await sleep(1500);
  expect((await stack.api('GET', `/messages/${res.body._id}`, { token })).body).toEqual(expect.objectContaining({ status: 'scheduled', send_at: '2030-01-01T00:00:00.000Z', sent_at: null }));
  expect(await stack.prisma.logDelivery.count({ where: { messageId: res.body._id } })).toBe(0);
});

test('an offset is read as written: the answer is the same instant in UTC', async () => {
  const res = await send({ ...valid, send_at: '2030-06-01T09:30:00-05:00' });
  expect(res.status).toBe(202);
  expect(res.body.send_at).toBe('2030-06-01T14:30:00.000Z');
});

test('a send_at a minute past is sent now', async () => {
  const before = Date.now();
  const res = await send({ ...valid, send_at: new Date(before - 60_000).toISOString() });
  expect(res.status).toBe(202);
  expect(Date.parse(res.body.send_at)).toBeGreaterThanOrEqual(before - 5);
  await waitForStatus(stack.api, token, res.body._id, 'sent');
});

describe('refused, nothing stored', () => {
  test.each([
    ['with delay', { delay: '1h', send_at: '2030-01-01T00:00:00Z' }, 'Invalid send_at: give delay or send_at, not both'],
    ['with delay 0', { delay: 0, send_at: '2030-01-01T00:00:00Z' }, 'Invalid send_at: give delay or send_at, not both'],
    ['without a zone', { send_at: '2030-01-01T00:00:00' }, /^Invalid send_at: must be an ISO 8601 date-time with its zone/],
    ['a date alone', { send_at: '2030-01-01' }, /^Invalid send_at: must be an ISO 8601 date-time with its zone/],
    ['a number', { send_at: 1893456000 }, /^Invalid send_at: must be an ISO 8601 date-time with its zone/],
    ['an impossible date', { send_at: '2030-02-30T00:00:00Z' }, /^Invalid send_at: must be an ISO 8601 date-time with its zone/],
    ['an hour past', { send_at: new Date(Date.now() - 3_600_000).toISOString() }, /^Invalid send_at: must not be in the past/],
    ['eleven years ahead', { send_at: new Date(Date.now() + 11 * 366 * 86_400_000).toISOString() }, 'Invalid send_at: at most 10 years ahead'],
    ['misnamed sendAt', { sendAt: '2030-01-01T00:00:00Z' }, 'Unknown field: sendAt'],
    ['misnamed delai', { delai: '1h' }, 'Unknown field: delai'],
  ])('%s', async (_name, fields, detail) => {
    const before = await count();
    expectProblem(await send({ ...valid, ...fields }), 400, detail);
    expect(await count()).toBe(before);
  });

  test('the contract\'s checks answer before an unknown field', async () => {
    expectProblem(await send({ ...valid, message_type: 'sms', sendAt: 'x' }), 400, 'Invalid message_type: must be "text"');
    expectProblem(await send({ ...valid, client_phone: undefined, sendAt: 'x' }), 400, 'Missing client or client_phone');
    expectProblem(await send({ ...valid, client: 'nobody', sendAt: 'x' }), 404, 'Client not found');
    const delay = await send({ ...valid, delay: 'soon', sendAt: 'x' });
    expect({ status: delay.status, detail: delay.body.detail }).toEqual({ status: 400, detail: 'Invalid delay' });
  });
});

test('Idempotency-Key: the same send_at replays, another is 422', async () => {
  const headers = { 'Idempotency-Key': `send-at-${Date.now()}` };
  const first = await send({ ...valid, send_at: '2031-01-01T00:00:00Z' }, headers);
  expect(first.status).toBe(202);
  const again = await send({ ...valid, send_at: '2031-01-01T01:00:00+01:00' }, headers);
  expect(again.status).toBe(202);
  expect(again.body._id).toBe(first.body._id);
  expect((await send({ ...valid, send_at: '2031-01-02T00:00:00Z' }, headers)).status).toBe(422);
});

test('a campaign takes send_at for every recipient', async () => {
  const res = await stack.api('POST', '/messages/batch', { token, body: { message_type: 'text', text_message: 'Hi', send_at: '2030-01-01T00:00:00Z', recipients: [{ client_phone: PHONE }] } });
  expect(res.status).toBe(202);
  expect(res.body.results).toEqual([expect.objectContaining({ status: 'scheduled', send_at: '2030-01-01T00:00:00.000Z' })]);
});
