import { startTestStack, uniqueName, type TestStack } from '../../support/stack';
import { expectProblem, problemOf, waitForStatus } from '../../support/helpers';

/**
 * The send-message API with the default `log` provider: every validation rule and its text,
 * ownership across users and businesses, the delay forms, and the log provider end to end.
 */
let stack: TestStack;
let alice: string;
let bob: string;
/** A second business path, for requests that must be refused without leaving anything behind. */
let refusedBusiness: string;

const PHONE = '+14155550123';
const valid = { message_type: 'text', client_phone: PHONE, text_message: 'Hello' };

beforeAll(async () => {
  stack = await startTestStack();
  alice = stack.token('alice');
  bob = stack.token('bob');
  refusedBusiness = uniqueName('refused');
  await stack.api('POST', '/clients', { token: alice, body: { _id: 'c-phone', name: 'Ada', phone: '+44 20 7946 0958' } });
  await stack.api('POST', '/clients', { token: alice, body: { _id: 'c-nophone', name: 'Nobody' } });
  await stack.api('POST', '/clients', { token: alice, body: { _id: 'c-main-only', phone: PHONE } });
  await stack.api('POST', '/clients', { token: bob, body: { _id: 'c-bob', phone: PHONE } });
  await stack.api('POST', `//ext/v2/${refusedBusiness}/clients`, { token: alice, body: { _id: 'c-phone', phone: PHONE } });
  await stack.api('POST', `//ext/v2/${refusedBusiness}/clients`, { token: alice, body: { _id: 'c-nophone' } });
});
afterAll(() => stack.stop());

/** Sends to the business that must end up with no message and no workflow. */
const sendRefused = (body: unknown, token = alice) => stack.api('POST', `//ext/v2/${refusedBusiness}/messages`, { token, body });
const send = (body: unknown, token = alice, headers: Record<string, string> = {}) => stack.api('POST', '/messages', { token, body, headers });


describe('authentication', () => {
  test('401 without a token', async () => {
    expectProblem(await sendRefused(valid, ''), 401);
  });

  test('401 with a token signed by another secret', async () => {
    const forged = stack.token('alice').replace(/\.[^.]+$/, '.c2lnbmF0dXJl');
    expectProblem(await sendRefused(valid, forged), 401);
  });
});

describe('validation, in the contract order, with its texts', () => {
  test.each<[string, unknown, string]>([
    ['message_type missing', { ...valid, message_type: undefined }, 'Invalid message_type: must be "text"'],
    ['message_type sms', { ...valid, message_type: 'sms' }, 'Invalid message_type: must be "text"'],
    ['message_type Text', { ...valid, message_type: 'Text' }, 'Invalid message_type: must be "text"'],
    ['a JSON array', [valid], 'Invalid message_type: must be "text"'],
    ['neither client nor client_phone', { message_type: 'text', text_message: 'Hi' }, 'Missing client or client_phone'],
    ['both empty', { message_type: 'text', client: '', client_phone: '  ', text_message: 'Hi' }, 'Missing client or client_phone'],
    ['both null', { message_type: 'text', client: null, client_phone: null, text_message: 'Hi' }, 'Missing client or client_phone'],
    ['client not a string', { ...valid, client: 42 }, 'Invalid client: must be a client id string'],
    ['client without a phone', { message_type: 'text', client: 'c-nophone', text_message: 'Hi' }, 'Client c-nophone has no phone number: send client_phone'],
    ['client_phone without +', { ...valid, client_phone: '4155550123' }, 'Invalid client_phone: must be an E.164 phone number such as +14155550123'],
    ['client_phone letters', { ...valid, client_phone: '+1 415 CALL NOW' }, 'Invalid client_phone: must be an E.164 phone number such as +14155550123'],
    ['client_phone too long', { ...valid, client_phone: '+1234567890123456' }, 'Invalid client_phone: must be an E.164 phone number such as +14155550123'],
    ['client_phone a number', { ...valid, client_phone: 14155550123 }, 'Invalid client_phone: must be an E.164 phone number such as +14155550123'],
    ['client_phone wrong even with a valid client', { ...valid, client: 'c-phone', client_phone: '12' }, 'Invalid client_phone: must be an E.164 phone number such as +14155550123'],
    ['text_message missing', { ...valid, text_message: undefined }, 'Missing or empty text_message'],
    ['text_message empty', { ...valid, text_message: '' }, 'Missing or empty text_message'],
    ['text_message blank', { ...valid, text_message: ' \n ' }, 'Missing or empty text_message'],
    ['text_message of zero-width characters only', { ...valid, text_message: '\u200b\u200c\u200d\u2060\ufeff' }, 'Missing or empty text_message'],
    ['text_message of invisible fillers and marks', { ...valid, text_message: ' \u3164\u00ad\u200e ' }, 'Missing or empty text_message'],
    ['client_phone of zero-width characters and no client', { message_type: 'text', client_phone: '\u200b', text_message: 'Hi' }, 'Missing client or client_phone'],
    ['text_message not a string', { ...valid, text_message: ['Hi'] }, 'Invalid text_message: must be a string'],
    ['text_message of 4097 characters', { ...valid, text_message: 'x'.repeat(4097) }, 'Invalid text_message: at most 4096 characters'],
    ['client_name not a string', { ...valid, client_name: { first: 'Ada' } }, 'Invalid client_name: must be a string of at most 200 characters'],
    ['client_name too long', { ...valid, client_name: 'n'.repeat(201) }, 'Invalid client_name: must be a string of at most 200 characters'],
  ])('%s → 400', async (_name, body, detail) => {
    expectProblem(await sendRefused(body), 400, detail);
  });

  test.each<[string, unknown]>([
    ['negative', '-5'],
    ['unreadable', 'tomorrow'],
    ['with a fraction', '1.5'],
    ['over ten years', 'P10YT1S'],
    ['over ten years in seconds', '400000000'],
    ['an object', { minutes: 5 }],
  ])('a delay %s → 400 `Invalid delay` (the contract\'s words), with a hint listing the forms a delay takes', async (_name, delay) => {
    expectProblem(
      await sendRefused({ ...valid, delay }),
      400,
      'Invalid delay',
      'A delay is a whole number of seconds (90), numbers with units s, m, h, d (90s, 5m, 1h30m), or an ISO 8601 duration (PT5M, P1D); empty or 0 sends now; at most 10 years',
    );
  });

  test('the first failing rule wins: message_type before everything else', async () => {
    expectProblem(await sendRefused({ message_type: 'fax', text_message: '', delay: 'x' }), 400, 'Invalid message_type: must be "text"');
  });

  test('the client check comes before the phone, text and delay checks', async () => {
    expectProblem(await sendRefused({ message_type: 'text', client: 'nobody', client_phone: 'bad', text_message: '', delay: 'x' }), 404, 'Client not found');
  });

  test('text_message is checked before delay', async () => {
    expectProblem(await sendRefused({ ...valid, text_message: '', delay: 'x' }), 400, 'Missing or empty text_message');
  });

  test('an Idempotency-Key longer than 255 characters → 400', async () => {
    const res = await stack.api('POST', `//ext/v2/${refusedBusiness}/messages`, { token: alice, body: valid, headers: { 'Idempotency-Key': 'k'.repeat(256) } });
    expectProblem(res, 400, 'Invalid Idempotency-Key: must be 1-255 printable ASCII characters');
  });

  test('malformed JSON → 400 problem', async () => {
    const res = await stack.api('POST', `//ext/v2/${refusedBusiness}/messages`, {
      token: alice,
      rawBody: '{"message_type": "text", ',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 400, 'Malformed JSON body');
  });

  test('a JSON string as the body → 400 problem', async () => {
    const res = await stack.api('POST', `//ext/v2/${refusedBusiness}/messages`, { token: alice, rawBody: '"text"', headers: { 'content-type': 'application/json' } });
    expectProblem(res, 400);
  });

  test('a body over 100 kB → 413 problem', async () => {
    const res = await sendRefused({ ...valid, text_message: 'x'.repeat(101 * 1024) });
    expectProblem(res, 413, 'Request body is larger than 100 kB');
  });
});

describe('ownership', () => {
  test("another user's client → 404, the same answer as a missing one", async () => {
    const foreign = await send({ message_type: 'text', client: 'c-bob', text_message: 'Hi' });
    const missing = await send({ message_type: 'text', client: 'does-not-exist', text_message: 'Hi' });
    expectProblem(foreign, 404, 'Client not found');
    expect(problemOf(foreign.body)).toEqual(problemOf(missing.body));
  });

  test("the caller's own client under another business path → 404", async () => {
    expectProblem(await sendRefused({ message_type: 'text', client: 'c-main-only', text_message: 'Hi' }), 404, 'Client not found');
    expectProblem(await sendRefused({ message_type: 'text', client: 'c-bob', text_message: 'Hi' }, bob), 404, 'Client not found');
  });

  test("a message is invisible to other users and other businesses, and they cannot cancel it", async () => {
    const created = await send({ ...valid, delay: '1h' });
    expect(created.status).toBe(202);
    const path = `/messages/${created.body._id}`;
    const missing = await stack.api('GET', '/messages/00000000-0000-4000-8000-000000000000', { token: alice });
    expectProblem(missing, 404, 'Message not found');
    for (const res of [
      await stack.api('GET', path, { token: bob }),
      await stack.api('POST', `${path}/cancel`, { token: bob }),
      await stack.api('GET', `//ext/v2/${refusedBusiness}${path}`, { token: alice }),
      await stack.api('POST', `//ext/v2/${refusedBusiness}${path}/cancel`, { token: alice }),
    ]) {
      expectProblem(res, 404, 'Message not found');
      expect(problemOf(res.body)).toEqual(problemOf(missing.body));
    }
    expectProblem(await stack.api('GET', '/messages/not-a-uuid', { token: alice }), 404, 'Message not found');
    expect((await stack.api('GET', path, { token: alice })).body.status).toBe('scheduled');
  });
});

test('refused requests left no message and no workflow behind', async () => {
  expect(await stack.prisma.message.count({ where: { business: refusedBusiness } })).toBe(0);
  // Visibility lags a little behind; give a stray workflow time to show up before counting.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const { count } = await stack.temporal.workflow.count(`BusinessName = "${refusedBusiness}"`);
  expect(count).toBe(0);
});

describe('accepted messages', () => {
  test('202 with Location, _id, status, send_at and workflow_id; sent through the log provider', async () => {
    const before = Date.now();
    const res = await send({ ...valid, client_phone: '+1 415-555-0123', client_name: 'Ada' });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(['_id', 'send_at', 'status', 'workflow_id']);
    const { _id: id } = res.body;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('location')).toBe(`/ext/v2/${stack.business}/messages/${id}`);
    expect(res.body.status).toBe('scheduled');
    expect(res.body.workflow_id).toBe(`message/${stack.business}/${id}`);
    expect(Date.parse(res.body.send_at)).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(res.body.send_at)).toBeLessThanOrEqual(Date.now());

    const sent = { body: await waitForStatus(stack.api, alice, id, 'sent') };
    expect(sent.body).toEqual(
      expect.objectContaining({
        _id: id,
        message_type: 'text',
        client: null,
        client_phone: '+14155550123',
        client_name: 'Ada',
        text_message: 'Hello',
        status: 'sent',
        attempts: 1,
        provider: 'log',
        provider_ref: `log:${id}`,
        error: null,
        canceled_at: null,
        canceled_by: null,
      }),
    );
    expect(Date.parse(sent.body.sent_at)).toBeGreaterThanOrEqual(Date.parse(sent.body.dispatched_at));
    const deliveries = await stack.prisma.logDelivery.findMany({ where: { messageId: id } });
    expect(deliveries).toEqual([expect.objectContaining({ to: '+14155550123', text: 'Hello' })]);
    await expect(stack.temporal.workflow.getHandle(res.body.workflow_id).result()).resolves.toEqual({ outcome: 'sent' });
  });

  test("without client_phone the client's stored phone and name are used", async () => {
    const res = await send({ message_type: 'text', client: 'c-phone', text_message: 'Stored phone', delay: '1h' });
    expect(res.status).toBe(202);
    const got = await stack.api('GET', `/messages/${res.body._id}`, { token: alice });
    expect(got.body).toEqual(expect.objectContaining({ client: 'c-phone', client_phone: '+442079460958', client_name: 'Ada' }));
  });

  test("client_phone and client_name win over the client's stored ones", async () => {
    const res = await send({ message_type: 'text', client: 'c-phone', client_phone: PHONE, client_name: 'Grace', text_message: 'Given', delay: '1h' });
    const got = await stack.api('GET', `/messages/${res.body._id}`, { token: alice });
    expect(got.body).toEqual(expect.objectContaining({ client: 'c-phone', client_phone: PHONE, client_name: 'Grace' }));
  });

  test('a text of exactly 4096 characters, counted as characters rather than UTF-16 units', async () => {
    const res = await send({ ...valid, text_message: '😀'.repeat(4096), delay: '1h' });
    expect(res.status).toBe(202);
  });

  test('the workflow carries BusinessName and ClientId, and no phone number or text anywhere in its history', async () => {
    const res = await send({ message_type: 'text', client: 'c-phone', text_message: 'Private words' });
    const handle = stack.temporal.workflow.getHandle(res.body.workflow_id);
    await expect(handle.result()).resolves.toEqual({ outcome: 'sent' });
    const description = await handle.describe();
    const attributes = Object.fromEntries(description.typedSearchAttributes.getAll().map((pair) => [pair.key.name, pair.value]));
    delete attributes.BuildIds;
    delete attributes.TemporalChangeVersion;
    expect(attributes).toEqual({ BusinessName: stack.business, ClientId: 'c-phone', MessageStatus: expect.stringMatching(/^(scheduled|sending|sent)$/) });
    const history = textOf(await handle.fetchHistory());
    expect(history).toContain(`"messageId":"${res.body._id}"`);
    for (const secret of ['442079460958', 'Private words', 'Ada']) {
      expect(res.body.workflow_id).not.toContain(secret);
      expect(history).not.toContain(secret);
    }
  });
});

/** Every string and decoded payload in a history, so a search sees what the Temporal UI would show. */
function textOf(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join('\n');
  if (typeof value === 'object' && value !== null) return Object.values(value).map(textOf).join('\n');
  return '';
}

describe('delay forms', () => {
  const SECOND = 1000;
  const DAY = 86_400_000;
  test.each<[string, unknown, number]>([
    ['no delay', undefined, 0],
    ['empty', '', 0],
    ['"0"', '0', 0],
    ['0', 0, 0],
    ['"30" seconds', '30', 30 * SECOND],
    ['30 as a number', 30, 30 * SECOND],
    ['90s', '90s', 90 * SECOND],
    ['5m', '5m', 300 * SECOND],
    ['2h', '2h', 7200 * SECOND],
    ['1d', '1d', DAY],
    ['PT5M', 'PT5M', 300 * SECOND],
    ['P1D', 'P1D', DAY],
    ['P1DT2H', 'P1DT2H', DAY + 7200 * SECOND],
  ])('%s', async (_name, delay, expectedMs) => {
    const before = Date.now();
    const res = await send({ ...valid, text_message: `Delay ${String(delay)}`, delay });
    const after = Date.now();
    expect(res.status).toBe(202);
    const sendAt = Date.parse(res.body.send_at);
    expect(sendAt).toBeGreaterThanOrEqual(before + expectedMs - 5);
    expect(sendAt).toBeLessThanOrEqual(after + expectedMs + 5);
  });

  test('P1M is a calendar month and P10Y, the longest delay, ten calendar years', async () => {
    const month = await send({ ...valid, delay: 'P1M' });
    const days = (Date.parse(month.body.send_at) - Date.now()) / DAY;
    expect(days).toBeGreaterThan(27.9);
    expect(days).toBeLessThan(31.1);
    const decade = await send({ ...valid, delay: 'P10Y' });
    expect(decade.status).toBe(202);
    const years = new Date(decade.body.send_at).getUTCFullYear() - new Date().getUTCFullYear();
    expect(years).toBe(10);
    expect(decade.body.status).toBe('scheduled');
  });
});
