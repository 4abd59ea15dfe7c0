import { ApplicationFailure } from '@temporalio/common';
import { createCarrierProvider } from '../../src/activities/providers/carrier';
import { type Carrier, CarrierRejected, CarrierUnavailable, createCarrier, type CarrierCallback, type CarrierSend } from '../../src/carriers';
import { classifyTwilioAnswer, createTwilioCarrier } from '../../src/carriers/twilio';
import { retryAfterMs } from '../../src/retry-after';
import { loadConfig } from '../../src/config/index';
import { rejectionOf, withRef } from '../support/helpers';
import { MAGIC_TO_ERRORS, startCallbackCatcher, startFakeTwilio, type CapturedCallback, type FakeTwilio } from '../support/fake-twilio';

/* The Twilio carrier through the official SDK against a Twilio-compatible fake, and Twilio's callbacks signed with its real algorithm. */

let fake: FakeTwilio;
let catcher: Awaited<ReturnType<typeof startCallbackCatcher>>;
let carrier: Carrier;
beforeAll(async () => {
  fake = await startFakeTwilio();
  catcher = await startCallbackCatcher();
  carrier = createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, from: fake.from, apiUrl: fake.url });
});
afterAll(async () => {
  await fake.stop();
  await catcher.stop();
});

let counter = 0;
function outgoing(to = '+14155550100', text = `Hello ${++counter}`): CarrierSend {
  const id = `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`;
  return { id, to, text, statusCallbackUrl: `${catcher.base}/providers/twilio/status/${id}`, dispatchedAt: new Date(), channel: 'sms', media: [] };
}

const callbackOf = (captured: CapturedCallback, messageId?: string): CarrierCallback => ({
  url: captured.url,
  headers: captured.headers as Record<string, string>,
  rawBody: captured.rawBody,
  messageId,
});

test('a send is the documented request: Basic auth, form-encoded To, From, Body and StatusCallback; the answer is the message SID', async () => {
  const message = outgoing();
  const accepted = await withRef(carrier.send(message));
  expect(accepted.providerRef).toMatch(/^SM[0-9a-f]{32}$/);
  expect(accepted.segments).toBe(1);
  const request = fake.api.requests.at(-1)!;
  expect(request).toMatchObject({ method: 'POST', path: `/2010-04-01/Accounts/${fake.accountSid}/Messages.json`, status: 201 });
  expect(request.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
  expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${fake.accountSid}:${fake.authToken}`).toString('base64')}`);
  expect(request.params).toEqual({ To: message.to, From: fake.from, Body: message.text, StatusCallback: message.statusCallbackUrl });
  expect(fake.api.sentTo(message.to).at(-1)?.sid).toBe(accepted.providerRef);
});

test('through a messaging service with an API key: MessagingServiceSid instead of From, the key as Basic credentials, the service as the sender', async () => {
  const viaService = createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, apiKey: fake.apiKey, messagingServiceSid: fake.messagingServiceSid, apiUrl: fake.url });
  expect(viaService.sender).toBe(fake.messagingServiceSid);
  const message = outgoing();
  await viaService.send(message);
  const request = fake.api.requests.at(-1)!;
  expect(request.status).toBe(201);
  expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${fake.apiKey.sid}:${fake.apiKey.secret}`).toString('base64')}`);
  expect(request.params).toEqual({ To: message.to, MessagingServiceSid: fake.messagingServiceSid, Body: message.text, StatusCallback: message.statusCallbackUrl });
});

test("Twilio's refusals are final, with Twilio's code and our own words; an unsubscribed recipient is an opt-out", async () => {
  const cases: [string, string, boolean][] = [
    ['+15005550001', '21211', false],
    ['+15005550002', '21612', false],
    ['+15005550003', '21408', false],
    ['+15005550004', '21610', true],
    ['+15005550009', '21614', false],
    ['4155550100', '21211', false],
  ];
  for (const [to, code, optOut] of cases) {
    const error = await rejectionOf(carrier.send(outgoing(to)));
    expect(error).toBeInstanceOf(CarrierRejected);
    expect({ to, code: (error as CarrierRejected).code, optOut: (error as CarrierRejected).optOut }).toEqual({ to, code, optOut });
    // Never Twilio's text (which may quote the number), never the number.
    expect(error.message).not.toContain(to);
    if (MAGIC_TO_ERRORS[to]) expect(error.message).not.toContain(MAGIC_TO_ERRORS[to].message);
  }
  expect((await rejectionOf(carrier.send(outgoing('+15005550009')))).message).toBe('The recipient number is not a mobile number');
});

test('wrong credentials are final (20003): retrying cannot heal them', async () => {
  const wrong = createTwilioCarrier({ accountSid: fake.accountSid, authToken: 'not-the-token', from: fake.from, apiUrl: fake.url });
  const error = await rejectionOf(wrong.send(outgoing()));
  expect(error).toBeInstanceOf(CarrierRejected);
  expect((error as CarrierRejected).code).toBe('20003');
});

test('throttling (429 with Retry-After), Twilio failing (5xx) and an unreachable Twilio are worth another attempt', async () => {
  fake.api.throttleNext(1, 7);
  const throttled = await rejectionOf(carrier.send(outgoing()));
  expect(throttled).toBeInstanceOf(CarrierUnavailable);
  expect((throttled as CarrierUnavailable).retryAfterMs).toBe(7000);
  expect(throttled.message).toContain('20429');

  fake.api.failNext(1);
  const failing = await rejectionOf(carrier.send(outgoing()));
  expect(failing).toBeInstanceOf(CarrierUnavailable);
  expect((failing as CarrierUnavailable).retryAfterMs).toBeUndefined();

  const unreachable = createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, from: fake.from, apiUrl: 'http://127.0.0.1:9' });
  const refused = await rejectionOf(unreachable.send(outgoing()));
  expect(refused).toBeInstanceOf(CarrierUnavailable);
  expect(refused.message).toBe('Twilio unreachable: ECONNREFUSED');

  // The next send goes through.
  await expect(carrier.send(outgoing())).resolves.toMatchObject({ providerRef: expect.stringMatching(/^SM/) });
});

test('Retry-After in seconds or as an HTTP date; anything else is no wait', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  expect(retryAfterMs('120', now)).toBe(120_000);
  expect(retryAfterMs('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
  expect(retryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
  expect(retryAfterMs('soon', now)).toBeUndefined();
  expect(retryAfterMs(undefined, now)).toBeUndefined();
});

test("the worker's provider: a refusal is a non-retryable ProviderRejected with the code; a 429 is retried after Retry-After", async () => {
  const provider = createCarrierProvider(carrier, catcher.base);
  const base = { business: 'acme', client: null, name: null, text: 'Hi', dispatchedAt: new Date(), channel: 'sms' as const, media: [] };
  const rejected = (await rejectionOf(provider.deliver({ id: '00000000-0000-4000-8000-0000000000aa', to: '+15005550004', ...base }))) as ApplicationFailure;
  expect(rejected).toBeInstanceOf(ApplicationFailure);
  expect({ type: rejected.type, nonRetryable: rejected.nonRetryable, details: rejected.details }).toEqual({
    type: 'ProviderRejected',
    nonRetryable: true,
    details: [{ code: '21610', optOut: true }],
  });
  fake.api.throttleNext(1, 3);
  const throttled = (await rejectionOf(provider.deliver({ id: '00000000-0000-4000-8000-0000000000ab', to: '+14155550100', ...base }))) as ApplicationFailure;
  expect({ nonRetryable: throttled.nonRetryable, nextRetryDelay: throttled.nextRetryDelay }).toEqual({ nonRetryable: false, nextRetryDelay: 3000 });
  const delivered = await provider.deliver({ id: '00000000-0000-4000-8000-0000000000ac', to: '+14155550100', ...base });
  expect(delivered.providerRef).toMatch(/^SM/);
  expect(fake.api.requests.at(-1)?.params.StatusCallback).toBe(`${catcher.base}/providers/twilio/status/00000000-0000-4000-8000-0000000000ac`);
});

test("status callbacks signed with Twilio's algorithm verify and parse; a tampered, unsigned, foreign-signed or re-addressed one does not verify", async () => {
  const message = outgoing();
  const { providerRef } = await withRef(carrier.send(message));
  await fake.api.postStatus(providerRef, 'sent');
  await fake.api.postStatus(providerRef, 'delivered', { price: { amount: '-0.00790', unit: 'USD' } });
  await fake.api.postStatus(providerRef, 'undelivered', { errorCode: 30007 });
  await fake.api.postStatus(providerRef, 'queued');
  const [sent, delivered, undelivered, queued] = catcher.received.slice(-4).map((captured) => callbackOf(captured, message.id));
  expect(sent.url).toBe(message.statusCallbackUrl);
  for (const callback of [sent, delivered, undelivered, queued]) expect(await carrier.verify(callback)).toBe(true);
  // `sender`: the number it went out from, so that a receipt moves only a message sent from that number.
  const sender = '+15005550006';
  expect(carrier.parseReceipt(sent)).toEqual({ providerRef, messageId: message.id, status: 'sent', sender });
  expect(carrier.parseReceipt(delivered)).toEqual({ providerRef, messageId: message.id, status: 'delivered', price: { amount: '0.00790', unit: 'USD' }, sender });
  expect(carrier.parseReceipt(undelivered)).toEqual({ providerRef, messageId: message.id, status: 'undelivered', errorCode: '30007', sender });
  expect(carrier.parseReceipt(queued)).toBeNull();
  expect(carrier.parseInbound(delivered)).toBeNull();

  const tampered = { ...delivered, rawBody: Buffer.from(delivered.rawBody.toString().replace('MessageStatus=delivered', 'MessageStatus=failed')) };
  expect(await carrier.verify(tampered)).toBe(false);
  const { 'x-twilio-signature': _signature, ...unsigned } = delivered.headers;
  expect(await carrier.verify({ ...delivered, headers: unsigned })).toBe(false);
  expect(await carrier.verify({ ...delivered, url: delivered.url.replace(message.id, '00000000-0000-4000-8000-ffffffffffff') })).toBe(false);
  await fake.api.postStatus(providerRef, 'delivered', { authToken: 'another-accounts-token' });
  expect(await carrier.verify(callbackOf(catcher.received.at(-1)!, message.id))).toBe(false);
});

test('an incoming text verifies and parses to its SID, From, To and Body; it is no receipt', async () => {
  await fake.api.postInbound(`${catcher.base}/providers/twilio/inbound`, { from: '+14155550100', to: fake.from, body: ' Stop ' });
  const callback = callbackOf(catcher.received.at(-1)!);
  expect(await carrier.verify(callback)).toBe(true);
  expect(carrier.parseInbound(callback)).toEqual({ providerRef: expect.stringMatching(/^SM[0-9a-f]{32}$/), from: '+14155550100', to: fake.from, text: ' Stop ', receivedAt: expect.any(Date), channel: 'sms', media: [] });
  expect(carrier.parseReceipt(callback)).toBeNull();
});

test('findSent: after a crash, the newest outbound message with the same text to the same number since the dispatch; none otherwise', async () => {
  const to = '+14155550177';
  const message = { ...outgoing(to, 'Your appointment is at 3'), dispatchedAt: new Date(Date.now() - 1000) };
  expect(await carrier.findSent(message)).toBeNull();
  const first = await withRef(carrier.send(message));
  await carrier.send({ ...message, text: 'Another text' });
  expect(await carrier.findSent(message)).toEqual({ providerRef: first.providerRef, segments: 1 });
  const second = await withRef(carrier.send(message));
  expect((await carrier.findSent(message))?.providerRef).toBe(second.providerRef);
  // A message dispatched after those copies were made is not one of them.
  expect(await carrier.findSent({ ...message, dispatchedAt: new Date(Date.now() + 5 * 60_000) })).toBeNull();
  expect(await carrier.findSent({ ...message, to: '+14155550178' })).toBeNull();
  const lookup = fake.api.requests.at(-1)!;
  expect(lookup).toMatchObject({ method: 'GET', path: `/2010-04-01/Accounts/${fake.accountSid}/Messages.json`, status: 200 });
  expect(lookup.params).toMatchObject({ To: '+14155550178', From: fake.from });
});

test('reply sends a plain message: no status callback', async () => {
  await carrier.reply('+14155550100', 'Reply STOP to unsubscribe.');
  expect(fake.api.requests.at(-1)!.params).toEqual({ To: '+14155550100', From: fake.from, Body: 'Reply STOP to unsubscribe.' });
});

test('MESSAGE_PROVIDER=twilio builds the Twilio carrier from the configuration, its REST base from TWILIO_API_URL', async () => {
  const config = loadConfig({
    MESSAGE_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: fake.accountSid,
    TWILIO_AUTH_TOKEN: fake.authToken,
    TWILIO_FROM: fake.from,
    TWILIO_API_URL: fake.url,
    PUBLIC_BASE_URL: catcher.base,
  });
  const configured = createCarrier(config)!;
  expect({ name: configured.name, sender: configured.sender }).toEqual({ name: 'twilio', sender: fake.from });
  const accepted = await withRef(configured.send(outgoing()));
  expect(fake.api.messages.some((message) => message.sid === accepted.providerRef)).toBe(true);
  expect(() => loadConfig({ MESSAGE_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: fake.accountSid, TWILIO_FROM: fake.from, PUBLIC_BASE_URL: catcher.base })).toThrow(
    'MESSAGE_PROVIDER=twilio needs TWILIO_AUTH_TOKEN',
  );
});

describe('A2P registration through the Messaging API (issue 51)', () => {
  const TOLL_FREE = '+18885550123';

  test('a number of an approved campaign: the services listed, the one holding it, its campaign and brand, each a GET with Basic auth', async () => {
    const before = fake.api.requests.length;
    const registration = await carrier.readRegistration!(fake.from);
    expect(registration).toEqual({
      kind: '10dlc',
      brand: { id: expect.stringMatching(/^BN[0-9a-f]{32}$/), status: 'approved' },
      campaign: { id: expect.any(String), useCase: 'CUSTOMER_CARE', status: 'approved' },
      tollFree: null,
    });
    const reads = fake.api.requests.slice(before);
    expect(reads.map((r) => r.method)).toEqual(reads.map(() => 'GET'));
    expect(reads.map((r) => r.status)).toEqual(reads.map(() => 200));
    expect(reads.map((r) => r.path.replace(/(MG|BN)[0-9a-f]{32}/g, '$1…'))).toEqual(
      expect.arrayContaining(['/v1/Services', '/v1/Services/MG…/PhoneNumbers', '/v1/Services/MG…/Compliance/Usa2p', '/v1/a2p/BrandRegistrations/BN…']),
    );
    expect(reads[0].headers.authorization).toBe(`Basic ${Buffer.from(`${fake.accountSid}:${fake.authToken}`).toString('base64')}`);
  });

  test.each([
    ['pending', { campaign: expect.objectContaining({ status: 'pending' }) }],
    ['rejected', { campaign: expect.objectContaining({ status: 'rejected' }) }],
    ['unregistered', { campaign: null, brand: null }],
  ] as const)('a number whose campaign is %s reads so', async (state, expected) => {
    const number = '+14155550142';
    fake.api.registrations.set(number, state);
    expect(await carrier.readRegistration!(number)).toMatchObject({ kind: '10dlc', ...expected });
  });

  test('the brand pending: the campaign approved, the brand not', async () => {
    fake.api.registrations.setBrand('pending');
    try {
      expect(await carrier.readRegistration!(fake.from)).toMatchObject({ brand: { status: 'pending' }, campaign: { status: 'approved' } });
    } finally {
      fake.api.registrations.setBrand('approved');
    }
  });

  test('a toll-free number: its IncomingPhoneNumber, then its verification by TollfreePhoneNumberSid', async () => {
    fake.api.registrations.set(TOLL_FREE, 'pending');
    expect(await carrier.readRegistration!(TOLL_FREE)).toEqual({ kind: 'toll_free', brand: null, campaign: null, tollFree: { status: 'pending' } });
    const verifications = fake.api.requests.filter((r) => r.path === '/v1/Tollfree/Verifications').at(-1)!;
    expect(verifications.params.TollfreePhoneNumberSid).toMatch(/^PN[0-9a-f]{32}$/);
    fake.api.registrations.set(TOLL_FREE, 'approved');
    expect((await carrier.readRegistration!(TOLL_FREE)).tollFree).toEqual({ status: 'approved' });
  });

  test('a number outside the US needs none and asks Twilio nothing', async () => {
    const before = fake.api.requests.length;
    expect(await carrier.readRegistration!('+447700900123')).toEqual({ kind: 'none', brand: null, campaign: null, tollFree: null });
    expect(fake.api.requests.length).toBe(before);
  });

  test('the fake checks the requests as Twilio documents them: PageSize 1 to 1,000, a PN sid, GET only', async () => {
    const get = (path: string, method = 'GET') => fetch(`${fake.url}${path}`, { method, headers: { authorization: `Basic ${Buffer.from(`${fake.accountSid}:${fake.authToken}`).toString('base64')}` } });
    expect((await get('/v1/Services?PageSize=1001')).status).toBe(400);
    expect(await (await get('/v1/Tollfree/Verifications?TollfreePhoneNumberSid=nope')).json()).toMatchObject({ code: 30436, status: 400 });
    expect((await get('/v1/Services', 'POST')).status).toBe(405);
    expect((await fetch(`${fake.url}/v1/Services`)).status).toBe(401);
  });

  test('30032, 30034 and 30035 are final refusals in our words, and say the sender\'s registration forbids the text', async () => {
    for (const code of ['30032', '30034', '30035']) {
      expect(carrier.isRegistrationCode!(code)).toBe(true);
      const refusal = classifyTwilioAnswer(400, Number(code));
      expect(refusal).toBeInstanceOf(CarrierRejected);
      expect(refusal.message).not.toMatch(/Twilio refused/);
    }
    expect(carrier.describeCode!('30034')).toBe('The sender is not in an approved US A2P 10DLC campaign (unregistered number)');
    expect(carrier.isRegistrationCode!('21610')).toBe(false);
  });
});
