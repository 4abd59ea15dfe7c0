import { randomBytes, randomUUID } from 'node:crypto';
import { memoryLogger, waitForStatus } from '../../support/helpers';
import { startTestStack, type TestApi, type TestStack } from '../../support/stack';
import { createTestCarrier, TEST_PUBLIC_BASE_URL } from '../../support/test-carrier';
import { validateAgainstDocument } from '../../support/openapi';

/**
 * The operator API about messages, with the operator credential: any business's message by the id the
 * Temporal UI shows (whose, where, why), and the inbound texts no message explains, paged. Each access
 * is logged with who asked; no credential, or a business token, is a 401.
 */
const ADMIN_TOKEN = randomBytes(24).toString('base64url');
const PHONE = '+14155550166';
const carrier = createTestCarrier();
carrier.describeCode = (code) => (code === '30003' ? "The recipient's handset is unreachable" : undefined);
const log = memoryLogger();
let stack: TestStack;
let api: TestApi;
let origin: string;
let token: string;

beforeAll(async () => {
  stack = await startTestStack({ carrier, logger: log.logger, env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL, ADMIN_TOKEN } });
  api = await stack.startApi({ logger: log.logger });
  origin = api.baseUrl.replace(/\/ext\/v2\/.*$/, '');
  token = stack.token('alice');
  await stack.api('POST', '/clients', { token, body: { _id: 'c-1', name: 'Ada', phone: PHONE } });
});
afterAll(() => stack.stop());

async function admin(path: string, bearer: string | null = ADMIN_TOKEN, base = origin) {
  const res = await fetch(`${base}/admin${path}`, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
  const body = (await res.json()) as any;
  validateAgainstDocument({ method: 'GET', path: `/admin${path}`, status: res.status, contentType: res.headers.get('content-type'), body, headers: res.headers });
  return { status: res.status, body };
}

test('GET /admin/messages/{id} answers any business\'s message: business, user, status and the reason in words, never the phone or text', async () => {
  const res = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c-1', text_message: 'Secret words' } });
  const id = res.body._id;
  const sent = await waitForStatus(stack.api, token, id, 'sent');
  expect((await carrier.post(origin, `/providers/${carrier.name}/status/${id}`, { kind: 'status', ref: `ref-${id}`, status: 'undelivered', error_code: '30003' })).status).toBe(200);

  const answer = await admin(`/messages/${id}`);
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual(
    expect.objectContaining({
      _id: id,
      business: stack.business,
      user: 'alice',
      client: 'c-1',
      direction: 'outbound',
      status: 'undelivered',
      reason: "The carrier reported the message undelivered: The recipient's handset is unreachable (error 30003)",
      error_code: '30003',
      workflow_id: res.body.workflow_id,
      send_at: sent.send_at,
      sent_at: sent.sent_at,
      created_at: sent.created_at,
    }),
  );
  const text = JSON.stringify(answer.body);
  expect(text).not.toContain(PHONE);
  expect(text).not.toContain('Secret words');
  expect(text).not.toContain('Ada');
  expect(log.lines).toContainEqual(expect.objectContaining({ event: 'admin.access', caller: 'admin token holder', method: 'GET', path: `/messages/${id}` }));
});

test('an unknown or impossible message id is a 404; no credential or a business token a 401; without an operator credential configured, a 404', async () => {
  expect(await admin(`/messages/${randomUUID()}`)).toEqual({ status: 404, body: expect.objectContaining({ status: 404, detail: 'Message not found' }) });
  expect(await admin('/messages/not-a-message')).toEqual({ status: 404, body: expect.objectContaining({ detail: 'Message not found' }) });
  expect((await admin(`/messages/${randomUUID()}`, null)).status).toBe(401);
  expect((await admin(`/messages/${randomUUID()}`, token)).status).toBe(401);
  expect((await admin('/unmatched-inbound', token)).status).toBe(401);

  const closed = await stack.startApi({ adminCredentials: undefined });
  const closedOrigin = closed.baseUrl.replace(/\/ext\/v2\/.*$/, '');
  expect((await fetch(`${closedOrigin}/admin/unmatched-inbound`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(404);
});

test('GET /admin/unmatched-inbound lists the texts no message explains, newest first, a page at a time', async () => {
  const stranger = `+1628${String(Math.floor(1e6 + Math.random() * 8e6))}`;
  for (const word of ['first', 'second', 'third']) {
    const res = await carrier.post(origin, `/providers/${carrier.name}/inbound`, { kind: 'inbound', ref: `in-${randomUUID()}`, from: stranger, to: carrier.sender, text: `Who is this? ${word}` });
    expect(res.status).toBe(200);
  }
  const ours: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: { status: number; body: any } = await admin(`/unmatched-inbound?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.status).toBe(200);
    expect(page.body.texts.length).toBeLessThanOrEqual(2);
    ours.push(...page.body.texts.filter((t: any) => t.from === stranger));
    cursor = page.body.next_cursor;
    pages++;
  } while (cursor && ours.length < 3 && pages < 500);
  expect(ours.map((t) => t.text)).toEqual(['Who is this? third', 'Who is this? second', 'Who is this? first']);
  expect(ours[0]).toEqual({ _id: expect.any(String), provider: carrier.name, business: null, ambiguous: false, from: stranger, to: carrier.sender, text: 'Who is this? third', received_at: expect.any(String), created_at: expect.any(String) });

  expect(await admin('/unmatched-inbound?limit=0')).toEqual({ status: 400, body: expect.objectContaining({ detail: 'Invalid limit: must be a whole number from 1 to 100' }) });
  expect(await admin('/unmatched-inbound?cursor=nonsense')).toEqual({ status: 400, body: expect.objectContaining({ detail: 'Invalid cursor: pass next_cursor from the previous page' }) });
});
