import { generateKeyPairSync } from 'node:crypto';
import { createCarrier } from '../../src/carriers';
import { createTelnyxCarrier, type TelnyxSettings } from '../../src/carriers/telnyx';
import { type Carrier, type CarrierCallback, CarrierRejected, type CarrierSend, CarrierUnavailable } from '../../src/carriers/types';
import type { Config } from '../../src/config/index';
import { CallbackReceiver } from '../support/callback-receiver';
import { FakeTelnyx, TELNYX_MAGIC } from '../support/fake-telnyx';
import { rejectionOf, withRef } from '../support/helpers';

/*
 * The Telnyx carrier through the official SDK against a local Telnyx API, and webhooks signed with
 * Telnyx's real algorithm (Ed25519 over `<timestamp>|<body>`) by a key made in the test, posted over HTTP.
 */

const FROM = '+15557770000';
const TO = '+14155550123';

let fake: FakeTelnyx;
let receiver: CallbackReceiver;
let carrier: Carrier;

function settings(overrides: Partial<TelnyxSettings> = {}): TelnyxSettings {
  return { TELNYX_API_KEY: fake.apiKey, TELNYX_FROM: FROM, TELNYX_PUBLIC_KEY: fake.publicKey, TELNYX_API_URL: fake.url, ...overrides };
}

function outgoing(id: string, to = TO, dispatchedAt = new Date()): CarrierSend {
  return { id, to, text: 'Your visit is confirmed for Tuesday', statusCallbackUrl: `${receiver.base}/providers/telnyx/status/${id}`, dispatchedAt, channel: 'sms', media: [] };
}

beforeAll(async () => {
  fake = await new FakeTelnyx().start();
  receiver = await new CallbackReceiver().start();
  carrier = createTelnyxCarrier(settings());
});

afterAll(async () => {
  await fake?.stop();
  await receiver?.stop();
});

describe('sending', () => {
  test('POST /v2/messages as Telnyx documents it: bearer key, JSON, to, from, text, this message\'s webhook_url and use_profile_webhooks false', async () => {
    const message = outgoing('m-documented');
    const accepted = await withRef(carrier.send(message));

    const request = fake.sends.at(-1)!;
    expect(request.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    expect(request.body).toEqual({ to: TO, from: FROM, text: message.text, webhook_url: message.statusCallbackUrl, use_profile_webhooks: false });
    expect(accepted).toEqual({ providerRef: expect.any(String), segments: 1 });
    expect(fake.messages.get(accepted.providerRef)).toMatchObject({ to: TO, webhook_url: message.statusCallbackUrl });
  });

  test('with TELNYX_MESSAGING_PROFILE_ID and no TELNYX_FROM, the profile picks the number: messaging_profile_id, no from', async () => {
    const byProfile = createTelnyxCarrier(settings({ TELNYX_FROM: undefined, TELNYX_MESSAGING_PROFILE_ID: fake.profileId }));
    await byProfile.send(outgoing('m-profile'));

    expect(fake.sends.at(-1)!.body).toEqual({ to: TO, messaging_profile_id: fake.profileId, text: expect.any(String), webhook_url: expect.stringMatching(/\/status\/m-profile$/), use_profile_webhooks: false });
    expect(byProfile.sender).toBe(fake.profileId);
    expect(carrier.sender).toBe(FROM);
  });

  test('an automatic reply (HELP, opt-out confirmations) asks for no receipts', async () => {
    await carrier.reply(TO, 'Reply STOP to unsubscribe.');
    expect(fake.sends.at(-1)!.body).toEqual({ to: TO, from: FROM, text: 'Reply STOP to unsubscribe.', use_profile_webhooks: false });
  });

  test('MESSAGE_PROVIDER=telnyx builds this carrier', () => {
    const config = { MESSAGE_PROVIDER: 'telnyx', ...settings() } as unknown as Config;
    expect(createCarrier(config)?.name).toBe('telnyx');
  });
});

describe("Telnyx's refusals, in our words (never Telnyx's text, which quotes the number)", () => {
  /** The send of message `id`, Telnyx answering it with `failure`. */
  const sentAfter = (failure: Parameters<FakeTelnyx['failNext']>[0], id: string) => {
    fake.failNext(failure);
    return carrier.send(outgoing(id));
  };
  const cases: [string, () => Promise<unknown>, { kind: typeof CarrierRejected; code: string; optOut: boolean }][] = [
    ['40300 blocked due to STOP (409): an opt-out', () => carrier.send(outgoing('e1', TELNYX_MAGIC.stopped)), { kind: CarrierRejected, code: '40300', optOut: true }],
    ["40310 invalid 'to' address", () => carrier.send(outgoing('e2', TELNYX_MAGIC.invalidTo)), { kind: CarrierRejected, code: '40310', optOut: false }],
    ['40003 blocked as spam (permanent)', () => sentAfter({ status: 400, code: '40003', title: 'Blocked as spam - permanent' }, 'e3'), { kind: CarrierRejected, code: '40003', optOut: false }],
    ['40002 blocked as spam (temporary) is final for this message too', () => sentAfter({ status: 400, code: '40002', title: 'Blocked as spam - temporary' }, 'e4'), { kind: CarrierRejected, code: '40002', optOut: false }],
    ['40001 not routable (a landline)', () => sentAfter({ status: 400, code: '40001', title: 'Not routable' }, 'e5'), { kind: CarrierRejected, code: '40001', optOut: false }],
    ['an undocumented 4xx keeps its code', () => sentAfter({ status: 422, code: '99999', title: 'Something new' }, 'e6'), { kind: CarrierRejected, code: '99999', optOut: false }],
  ];

  test.each(cases)('%s', async (_name, attempt, expected) => {
    const error = await rejectionOf(attempt());
    expect(error).toBeInstanceOf(expected.kind);
    expect(error).toMatchObject({ code: expected.code, optOut: expected.optOut });
    expect((error as Error).message).not.toMatch(/\+1|5005550|not accepted|block rule|invalid\./);
  });

  test('E.164 is checked by Telnyx too: 10016 is a final refusal', async () => {
    const error = await rejectionOf(carrier.send(outgoing('e7', '4155550123')));
    expect(error).toBeInstanceOf(CarrierRejected);
    expect(error).toMatchObject({ code: '10016' });
  });
});

describe('throttled or unavailable: retried, after Retry-After when Telnyx gives one', () => {
  test('429 with Retry-After: 7 → unavailable, retry after 7 seconds', async () => {
    fake.failNext({ status: 429, code: '10011', title: 'Too many requests', retryAfter: '7' });
    const error = await rejectionOf(carrier.send(outgoing('u1')));
    expect(error).toBeInstanceOf(CarrierUnavailable);
    expect(error).toMatchObject({ retryAfterMs: 7000 });
    expect((error as Error).message).not.toMatch(/\+1/);
  });

  test('the SDK does not retry a send on its own (a repeat could send twice): one 429, one request', async () => {
    const before = fake.sends.length;
    fake.failNext({ status: 429, code: '10011', title: 'Too many requests' });
    await rejectionOf(carrier.send(outgoing('u2')));
    expect(fake.sends.length).toBe(before + 1);
  });

  test('500 10007 unexpected error → unavailable', async () => {
    const error = await rejectionOf(carrier.send(outgoing('u3', TELNYX_MAGIC.broken)));
    expect(error).toBeInstanceOf(CarrierUnavailable);
    expect((error as CarrierUnavailable).retryAfterMs).toBeUndefined();
  });

  test('503 with an HTTP-date Retry-After', async () => {
    fake.failNext({ status: 503, code: '10007', title: 'Unexpected error', retryAfter: new Date(Date.now() + 60_000).toUTCString() });
    const error = await rejectionOf(carrier.send(outgoing('u4')));
    expect(error).toBeInstanceOf(CarrierUnavailable);
    expect((error as CarrierUnavailable).retryAfterMs).toBeGreaterThan(50_000);
  });

  test('a rejected API key (401, 10009) is an operator fix away: retried, not the message failed', async () => {
    const wrongKey = createTelnyxCarrier(settings({ TELNYX_API_KEY: 'KEY_wrong' }));
    expect(await rejectionOf(wrongKey.send(outgoing('u5')))).toBeInstanceOf(CarrierUnavailable);
  });

  test('Telnyx unreachable → unavailable', async () => {
    const nowhere = createTelnyxCarrier(settings({ TELNYX_API_URL: 'http://127.0.0.1:1/v2' }));
    expect(await rejectionOf(nowhere.send(outgoing('u6')))).toBeInstanceOf(CarrierUnavailable);
  });
});

describe('webhook signatures (Ed25519 over "<telnyx-timestamp>|<raw body>", 5 minutes)', () => {
  async function postedFinalized(): Promise<CarrierCallback> {
    const accepted = await withRef(carrier.send(outgoing(`s-${Math.random().toString(36).slice(2)}`)));
    expect((await fake.postFinalized(accepted.providerRef)).status).toBe(200);
    return receiver.last;
  }

  test('a webhook posted and signed by Telnyx is verified', async () => {
    expect(await carrier.verify(await postedFinalized())).toBe(true);
  });

  test('a body changed after signing is refused', async () => {
    const callback = await postedFinalized();
    const tampered = Buffer.from(callback.rawBody.toString().replace('"delivered"', '"delivery_failed"'));
    expect(tampered.equals(callback.rawBody)).toBe(false);
    expect(await carrier.verify({ ...callback, rawBody: tampered })).toBe(false);
  });

  test('no signature, or no timestamp, is refused', async () => {
    const callback = await postedFinalized();
    const { 'telnyx-signature-ed25519': _s, ...unsigned } = callback.headers;
    const { 'telnyx-timestamp': _t, ...undated } = callback.headers;
    expect(await carrier.verify({ ...callback, headers: unsigned })).toBe(false);
    expect(await carrier.verify({ ...callback, headers: undated })).toBe(false);
  });

  test('signed by another key is refused', async () => {
    const other = generateKeyPairSync('ed25519').privateKey;
    const body = fake.eventBody('message.finalized', {}, receiver.base);
    await fake.post(`${receiver.base}/providers/telnyx/status/x`, body, fake.signatureHeaders(body, undefined, other));
    expect(await carrier.verify(receiver.last)).toBe(false);
  });

  test('correctly signed but older than 5 minutes (a replay) is refused; 4 minutes old is accepted', async () => {
    const body = fake.eventBody('message.finalized', {}, receiver.base);
    const now = Math.floor(Date.now() / 1000);
    await fake.post(`${receiver.base}/providers/telnyx/status/x`, body, fake.signatureHeaders(body, now - 6 * 60));
    expect(await carrier.verify(receiver.last)).toBe(false);
    await fake.post(`${receiver.base}/providers/telnyx/status/x`, body, fake.signatureHeaders(body, now - 4 * 60));
    expect(await carrier.verify(receiver.last)).toBe(true);
  });

  test('a timestamp more than 5 minutes ahead is refused too', async () => {
    const body = fake.eventBody('message.finalized', {}, receiver.base);
    await fake.post(`${receiver.base}/providers/telnyx/status/x`, body, fake.signatureHeaders(body, Math.floor(Date.now() / 1000) + 6 * 60));
    expect(await carrier.verify(receiver.last)).toBe(false);
  });

  test('the same key given as a PEM verifies the same', async () => {
    const pem = createTelnyxCarrier(settings({ TELNYX_PUBLIC_KEY: fake.publicKeyPem.replace(/\n/g, '\\n') }));
    expect(await pem.verify(await postedFinalized())).toBe(true);
  });

  test('a TELNYX_PUBLIC_KEY that is no Ed25519 key stops the boot, without echoing it', () => {
    expect(() => createTelnyxCarrier(settings({ TELNYX_PUBLIC_KEY: 'not-a-key-at-all' }))).toThrow(/^Invalid configuration: TELNYX_PUBLIC_KEY must be the base64 Ed25519 public key/);
    expect(() => createTelnyxCarrier(settings({ TELNYX_PUBLIC_KEY: 'not-a-key-at-all' }))).not.toThrow(/not-a-key/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'pem', type: 'spki' }).toString();
    expect(() => createTelnyxCarrier(settings({ TELNYX_PUBLIC_KEY: rsa }))).toThrow(/not an Ed25519 public key/);
  });
});

describe('receipts and inbound texts', () => {
  test('message.finalized delivered → a delivered receipt with our id, the price, when, and the number it went out from', async () => {
    const accepted = await withRef(carrier.send(outgoing('r-delivered')));
    await fake.postFinalized(accepted.providerRef);
    expect(carrier.parseReceipt(receiver.last)).toEqual({
      providerRef: accepted.providerRef,
      messageId: 'r-delivered',
      status: 'delivered',
      price: { amount: '0.0040', unit: 'USD' },
      at: expect.any(Date),
      sender: expect.stringMatching(/^\+\d+$/),
    });
    expect(carrier.parseInbound(receiver.last)).toBeNull();
  });

  test("message.finalized delivery_failed (40001 not routable) → undelivered with Telnyx's code", async () => {
    const accepted = await withRef(carrier.send(outgoing('r-failed', TELNYX_MAGIC.notRoutable)));
    await fake.postFinalized(accepted.providerRef);
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ providerRef: accepted.providerRef, status: 'undelivered', errorCode: '40001' });
  });

  test('sending_failed → failed; message.sent → sent; a status we do not track (queued) → null', async () => {
    const accepted = await withRef(carrier.send(outgoing('r-other')));
    await fake.postSent(accepted.providerRef);
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ status: 'sent', messageId: 'r-other' });
    await fake.postFinalized(accepted.providerRef, 'sending_failed', [{ code: '40013', title: 'Invalid source number' }]);
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ status: 'failed', errorCode: '40013' });
    const queued = fake.eventBody('message.sent', fake.outboundPayload(fake.message(accepted.providerRef), 'queued'), receiver.base);
    expect(carrier.parseReceipt({ ...receiver.last, rawBody: Buffer.from(queued) })).toBeNull();
    // A body that is no Telnyx event is unreadable (the door's 400), not "nothing to do".
    expect(() => carrier.parseReceipt({ ...receiver.last, rawBody: Buffer.from('not json') })).toThrow();
    expect(() => carrier.parseInbound({ ...receiver.last, rawBody: Buffer.from('{"data":{}}') })).toThrow();
  });

  test('message.received → the inbound text: Telnyx id, the client\'s number, ours, the text', async () => {
    const posted = await fake.postInbound(`${receiver.base}/providers/telnyx/inbound`, ' Stop ', '+14155550199', FROM);
    expect(await carrier.verify(receiver.last)).toBe(true);
    expect(carrier.parseInbound(receiver.last)).toEqual({ providerRef: posted.id, from: '+14155550199', to: FROM, text: ' Stop ', receivedAt: expect.any(Date), channel: 'sms', media: [] });
    expect(carrier.parseReceipt(receiver.last)).toBeNull();
  });
});

describe('after a crash: finding a send Telnyx may already have (detail records, matched on the receipt URL that carries our id)', () => {
  test('a message Telnyx accepted is found, before and after its final receipt; nothing is sent again', async () => {
    const message = outgoing('c-found', '+14155550777', new Date(Date.now() - 1000));
    const accepted = await withRef(carrier.send(message));
    const sends = fake.sends.length;

    expect(await carrier.findSent(message)).toEqual({ providerRef: accepted.providerRef, segments: 1 });
    await fake.postFinalized(accepted.providerRef);
    expect(await carrier.findSent(message)).toEqual({ providerRef: accepted.providerRef, segments: 1, price: { amount: '0.0040', unit: 'USD' } });
    expect(fake.sends.length).toBe(sends);
    const search = fake.requests.filter((r) => r.path === '/v2/detail_records').at(-1)!;
    expect(Object.fromEntries(search.query)).toMatchObject({ 'filter[record_type]': 'messaging', 'filter[direction]': 'outbound', 'filter[cld]': '+14155550777', sort: '-created_at' });
  });

  test('a send whose answer was lost (Telnyx kept it, the connection dropped): unavailable, then found, so the retry does not send it again', async () => {
    const message = outgoing('c-lost', '+14155550779', new Date(Date.now() - 1000));
    fake.loseNextAnswer();
    expect(await rejectionOf(carrier.send(message))).toBeInstanceOf(CarrierUnavailable);
    const [kept] = [...fake.messages.values()].filter((m) => m.to === '+14155550779');
    expect(await carrier.findSent(message)).toEqual({ providerRef: kept.id, segments: 1 });
    expect(fake.sends.filter((r) => r.body.to === '+14155550779')).toHaveLength(1);
  });

  test('another message to the same number is not mistaken for this one', async () => {
    await carrier.send(outgoing('c-other', '+14155550778'));
    expect(await carrier.findSent(outgoing('c-missing', '+14155550778', new Date(Date.now() - 1000)))).toBeNull();
  });

  test('a lookup Telnyx cannot answer is unavailable (ask again later), never "not sent"', async () => {
    const nowhere = createTelnyxCarrier(settings({ TELNYX_API_URL: 'http://127.0.0.1:1/v2' }));
    expect(await rejectionOf(nowhere.findSent(outgoing('c-down')))).toBeInstanceOf(CarrierUnavailable);
  });
});

describe('A2P registration through the 10DLC and toll-free verification APIs (issue 51)', () => {
  const NUMBER = '+14155550188';
  const TOLL_FREE = '+18445550188';
  const reads = () => fake.requests.filter((r) => r.path.startsWith('/v2/10dlc/') || r.path.startsWith('/v2/messaging_tollfree/'));

  test('an assigned number of a provisioned campaign of an OK brand: its assignment, its campaign and its brand, each a GET with the bearer key', async () => {
    fake.registrations.set(NUMBER, 'approved');
    const before = reads().length;
    expect(await carrier.readRegistration!(NUMBER)).toEqual({
      kind: '10dlc',
      brand: { id: fake.registrations.brandId, status: 'approved' },
      campaign: { id: expect.stringMatching(/^4B/), useCase: 'CUSTOMER_CARE', status: 'approved' },
      tollFree: null,
    });
    const made = reads().slice(before);
    expect(made.map((r) => `${r.method} ${decodeURIComponent(r.path).replace(/4B[0-9A-F]{8}/g, '{id}')}`)).toEqual([
      `GET /v2/10dlc/phone_number_campaigns/${NUMBER}`,
      'GET /v2/10dlc/campaign/{id}',
      'GET /v2/10dlc/brand/{id}',
    ]);
    expect(made.every((r) => r.headers.authorization === `Bearer ${fake.apiKey}`)).toBe(true);
  });

  test.each([
    ['pending', { campaign: expect.objectContaining({ status: 'pending' }) }],
    ['rejected', { campaign: expect.objectContaining({ status: 'rejected' }) }],
    ['unregistered', { campaign: null, brand: null }],
  ] as const)('a number whose campaign (or assignment) is %s reads so', async (state, expected) => {
    fake.registrations.set(NUMBER, state);
    expect(await carrier.readRegistration!(NUMBER)).toMatchObject({ kind: '10dlc', ...expected });
  });

  test('a brand whose registration is pending reads so', async () => {
    fake.registrations.set(NUMBER, 'approved');
    fake.registrations.brandStatus = 'REGISTRATION_PENDING';
    try {
      expect(await carrier.readRegistration!(NUMBER)).toMatchObject({ brand: { status: 'pending' }, campaign: { status: 'approved' } });
    } finally {
      fake.registrations.brandStatus = 'OK';
    }
  });

  test('a toll-free number: its verification request by phone_number, with the page and page_size Telnyx requires', async () => {
    expect((await carrier.readRegistration!(TOLL_FREE)).tollFree).toBeNull();
    fake.registrations.set(TOLL_FREE, 'pending');
    expect(await carrier.readRegistration!(TOLL_FREE)).toEqual({ kind: 'toll_free', brand: null, campaign: null, tollFree: { status: 'pending' } });
    fake.registrations.set(TOLL_FREE, 'approved');
    expect((await carrier.readRegistration!(TOLL_FREE)).tollFree).toEqual({ status: 'approved' });
    const query = reads().at(-1)!.query;
    expect({ phone_number: query.get('phone_number'), page: query.get('page'), page_size: query.get('page_size') }).toEqual({ phone_number: TOLL_FREE, page: '1', page_size: '20' });
    const refused = await fetch(`${fake.url}/messaging_tollfree/verification/requests?phone_number=${encodeURIComponent(TOLL_FREE)}`, { headers: { authorization: `Bearer ${fake.apiKey}` } });
    expect(refused.status).toBe(400);
  });

  test('Telnyx failing is "unavailable" for a registration read, never a refusal', async () => {
    const wrongKey = createTelnyxCarrier(settings({ TELNYX_API_KEY: 'KEY_wrong' }));
    await expect(wrongKey.readRegistration!(NUMBER)).rejects.toBeInstanceOf(CarrierUnavailable);
  });

  test('40010 (not 10DLC registered) and 40329 (toll-free not verified) are final refusals in our words that say the registration forbids the text', () => {
    // Telnyx's messaging error codes: 40010 "Not 10DLC registered", 40329 "Toll-free not verified".
    expect(carrier.describeCode!('40010')).toBe('The sender is not in an approved US A2P 10DLC campaign');
    expect(carrier.describeCode!('40329')).toBe('The sender is a toll-free number that is not verified');
    for (const code of ['40010', '40329']) expect(carrier.isRegistrationCode!(code)).toBe(true);
    expect(carrier.isRegistrationCode!('40300')).toBe(false);
  });
});
