import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import jwt from 'jsonwebtoken';
import { createCarrier } from '../../src/carriers';
import { type Carrier, type CarrierCallback, CarrierRejected, type CarrierSend, CarrierUnavailable } from '../../src/carriers/types';
import { createVonageCarrier, type VonageSettings } from '../../src/carriers/vonage';
import { type TenDlcGet, vonageRegistration } from '../../src/carriers/vonage/registration';
import type { Config } from '../../src/config/index';
import { CallbackReceiver } from '../support/callback-receiver';
import { FakeVonage, VONAGE_MAGIC } from '../support/fake-vonage';
import { rejectionOf, withRef } from '../support/helpers';

/*
 * The Vonage carrier through the official SDK against a local Messages API, and webhooks signed with
 * Vonage's real scheme (a HS256 JWT carrying the body's SHA-256 as `payload_hash`) by a secret made in
 * the test, posted over HTTP.
 */

const FROM = '+15557770000';
const TO = '+14155550123';

let fake: FakeVonage;
let receiver: CallbackReceiver;
let carrier: Carrier;

function jwtSettings(overrides: Partial<VonageSettings> = {}): VonageSettings {
  return { ...fake.settings(FROM), ...overrides };
}

function outgoing(id = randomUUID(), to = TO): CarrierSend {
  return { id, to, text: 'Your visit is confirmed for Tuesday', statusCallbackUrl: `${receiver.base}/providers/vonage/status/${id}`, dispatchedAt: new Date(), channel: 'sms', media: [] };
}

beforeAll(async () => {
  fake = await new FakeVonage().start();
  receiver = await new CallbackReceiver().start();
  carrier = createVonageCarrier(jwtSettings());
});

afterAll(async () => {
  await fake?.stop();
  await receiver?.stop();
});

describe('sending through the Messages API', () => {
  it('posts the documented SMS request with a JWT signed by the application key, our id as client_ref and the receipt URL as webhook_url', async () => {
    const message = outgoing();
    const accepted = await withRef(carrier.send(message));

    const sent = fake.sends.at(-1)!;
    expect(sent.headers['content-type']).toMatch(/^application\/json/);
    const token = /^Bearer (.+)$/.exec(sent.headers.authorization ?? '')![1]!;
    expect(jwt.decode(token, { complete: true })).toMatchObject({ header: { alg: 'RS256' }, payload: { application_id: fake.applicationId } });
    expect(sent.body).toEqual({ message_type: 'text', channel: 'sms', to: '14155550123', from: '15557770000', text: message.text, client_ref: message.id, webhook_url: message.statusCallbackUrl });
    expect(accepted).toEqual({ providerRef: fake.message(accepted.providerRef).message_uuid });
    expect(carrier.name).toBe('vonage');
    expect(carrier.sender).toBe(FROM);
  });

  it('uses Basic key:secret when no application is configured', async () => {
    const basic = createVonageCarrier({ VONAGE_API_KEY: fake.apiKey, VONAGE_API_SECRET: fake.apiSecret, VONAGE_FROM: FROM, VONAGE_SIGNATURE_SECRET: fake.signatureSecret, VONAGE_API_URL: fake.url });
    const accepted = await withRef(basic.send(outgoing()));
    expect(fake.sends.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from(`${fake.apiKey}:${fake.apiSecret}`).toString('base64')}`);
    expect(fake.messages.has(accepted.providerRef)).toBe(true);
  });

  it('is chosen by MESSAGE_PROVIDER=vonage and refuses to start without its settings', () => {
    const config = { MESSAGE_PROVIDER: 'vonage', ...jwtSettings() } as unknown as Config;
    expect(createCarrier(config)?.name).toBe('vonage');
    expect(() => createVonageCarrier({ VONAGE_FROM: FROM, VONAGE_SIGNATURE_SECRET: 's' })).toThrow(/VONAGE_APPLICATION_ID and VONAGE_PRIVATE_KEY/);
    expect(() => createVonageCarrier(jwtSettings({ VONAGE_SIGNATURE_SECRET: undefined }))).toThrow(/VONAGE_SIGNATURE_SECRET/);
  });

  it('sends an automatic answer without client_ref or webhook_url (receipts go to the application status URL)', async () => {
    await carrier.reply(TO, 'You are unsubscribed.');
    expect(fake.sends.at(-1)!.body).toEqual({ message_type: 'text', channel: 'sms', to: '14155550123', from: '15557770000', text: 'You are unsubscribed.' });
  });

  it("keeps the SDK's debug log off even with DEBUG=vonage:* (it prints the private key, numbers and texts)", async () => {
    const script = join(__dirname, '..', 'fixtures', 'vonage', 'send-with-debug.ts');
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], {
      cwd: join(__dirname, '..', '..'),
      env: { ...process.env, NODE_OPTIONS: '', DEBUG: 'vonage:*', DEBUG_COLORS: 'no' },
    });
    expect(stdout).toContain('sent');
    expect(stderr).not.toMatch(/PRIVATE KEY|14155550177|secret-body-text|vonage:/);
  });

  it('has no lookup of a sent SMS: findSent answers null', async () => {
    await expect(carrier.findSent(outgoing())).resolves.toBeNull();
  });
});

describe("Vonage's errors, in our words", () => {
  it('an invalid number (422, 1170) is a final refusal with the code and without the number', async () => {
    const error = await rejectionOf(carrier.send(outgoing(randomUUID(), VONAGE_MAGIC.invalidTo)));
    expect(error).toBeInstanceOf(CarrierRejected);
    expect(error).toMatchObject({ code: '1170', optOut: false });
    expect(error.message).not.toContain('5005550001');
  });

  it('invalid params (422, 1020) are a final refusal', async () => {
    fake.failNext({ status: 422, code: '1020', title: 'Invalid params' });
    expect(await rejectionOf(carrier.send(outgoing()))).toMatchObject({ name: 'CarrierRejected', code: '1020' });
  });

  it('an opted-out recipient (1240) is a refusal that records the opt-out', async () => {
    fake.failNext({ status: 422, code: '1240', title: 'Illegal Number' });
    expect(await rejectionOf(carrier.send(outgoing()))).toMatchObject({ name: 'CarrierRejected', code: '1240', optOut: true });
  });

  it('throttling (429) is retried after its Retry-After', async () => {
    fake.failNext({ status: 429, code: 'throttled', title: 'Rate Limit Hit', retryAfter: '7' });
    const error = await rejectionOf(carrier.send(outgoing()));
    expect(error).toBeInstanceOf(CarrierUnavailable);
    expect((error as CarrierUnavailable).retryAfterMs).toBe(7000);
  });

  it('a low balance (402) and an outage (500) are retried', async () => {
    const low = await rejectionOf(carrier.send(outgoing(randomUUID(), VONAGE_MAGIC.lowBalance)));
    expect(low).toBeInstanceOf(CarrierUnavailable);
    expect(low.message).toContain('low-balance');
    const broken = await rejectionOf(carrier.send(outgoing(randomUUID(), VONAGE_MAGIC.broken)));
    expect(broken).toBeInstanceOf(CarrierUnavailable);
    expect(broken.message).toContain('HTTP 500');
  });

  it('credentials Vonage refuses (401) are retried (an operator fixes them), never sent as another account', async () => {
    const other = new FakeVonage();
    const wrongKey = createVonageCarrier(jwtSettings({ VONAGE_PRIVATE_KEY: other.privateKey }));
    const error = await rejectionOf(wrongKey.send(outgoing()));
    expect(error).toBeInstanceOf(CarrierUnavailable);
    expect(error.message).toContain('HTTP 401');
  });

  it('an unreachable API is unavailable', async () => {
    const gone = await new FakeVonage().start();
    const url = gone.url;
    await gone.stop();
    const error = await rejectionOf(createVonageCarrier(jwtSettings({ VONAGE_API_URL: url })).send(outgoing()));
    expect(error).toBeInstanceOf(CarrierUnavailable);
    expect(error.message).toBe('Vonage could not be reached');
  });
});

describe('signed webhooks', () => {
  async function delivered(): Promise<{ message: CarrierSend; callback: CarrierCallback }> {
    const message = outgoing();
    const { providerRef } = await withRef(carrier.send(message));
    const posted = await fake.postStatus(providerRef);
    expect(posted.status).toBe(200);
    return { message, callback: receiver.last };
  }

  it('a status webhook signed by Vonage verifies and reads as a receipt with our id, price and time', async () => {
    const { message, callback } = await delivered();
    await expect(carrier.verify(callback)).resolves.toBe(true);
    const receipt = carrier.parseReceipt(callback);
    expect(receipt).toMatchObject({ status: 'delivered', messageId: message.id, price: { amount: '0.0333', unit: 'EUR' } });
    expect(receipt!.at).toBeInstanceOf(Date);
    expect(carrier.parseInbound(callback)).toBeNull();
  });

  it('no signature, a forged one, a tampered body, a stale or a non-HS256 token do not verify', async () => {
    const { callback } = await delivered();
    const body = callback.rawBody.toString('utf8');
    const withAuth = (authorization?: string): CarrierCallback => ({ ...callback, headers: { ...callback.headers, authorization } });
    await expect(carrier.verify(withAuth(undefined))).resolves.toBe(false);
    await expect(carrier.verify(withAuth(`Bearer ${fake.signature(body, { secret: 'not-the-secret' })}`))).resolves.toBe(false);
    await expect(carrier.verify({ ...callback, rawBody: Buffer.from(body.replace('"delivered"', '"rejected"')) })).resolves.toBe(false);
    await expect(carrier.verify(withAuth(`Bearer ${fake.signature(body, { iat: Math.floor(Date.now() / 1000) - 3600 })}`))).resolves.toBe(false);
    await expect(carrier.verify(withAuth(`Bearer ${fake.signature(body, { payloadHash: 'a'.repeat(64) })}`))).resolves.toBe(false);
    const unsigned = jwt.sign({ iat: Math.floor(Date.now() / 1000), payload_hash: 'x' }, '', { algorithm: 'none' });
    await expect(carrier.verify(withAuth(`Bearer ${unsigned}`))).resolves.toBe(false);
    // The application's own key pair may sign RS256 tokens; a webhook is only ever HS256 with the signature secret.
    await expect(carrier.verify(withAuth(`Bearer ${jwt.sign({ iat: Math.floor(Date.now() / 1000) }, fake.privateKey, { algorithm: 'RS256' })}`))).resolves.toBe(false);
    await expect(carrier.verify(withAuth(`Bearer ${fake.signature(body)}`))).resolves.toBe(true);
  });

  it("a signed status replayed to another message's receipt URL does not verify (the signature covers the body, whose client_ref names the message)", async () => {
    const { callback } = await delivered();
    const other = randomUUID();
    await expect(carrier.verify({ ...callback, messageId: other, url: callback.url.replace(callback.messageId!, other) })).resolves.toBe(false);
    await expect(carrier.verify(callback)).resolves.toBe(true);
  });

  it('rejected (opted out, 1240) reads as failed with its code; submitted as sent; undeliverable as undelivered', async () => {
    const message = outgoing(randomUUID(), VONAGE_MAGIC.optedOut);
    const { providerRef } = await withRef(carrier.send(message));
    await fake.postStatus(providerRef);
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ providerRef, status: 'failed', errorCode: '1240', messageId: message.id });
    await fake.postStatus(providerRef, 'submitted');
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ status: 'sent' });
    await fake.postStatus(providerRef, 'undeliverable', { code: '1100' });
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ status: 'undelivered', errorCode: '1100' });
  });

  it('an automatic answer\'s receipt (no client_ref) names no message of ours', async () => {
    await carrier.reply(TO, 'Help text');
    const uuid = [...fake.messages.values()].at(-1)!.message_uuid;
    await fake.postStatus(uuid, 'delivered', undefined, `${receiver.base}/providers/vonage/status`);
    const receipt = carrier.parseReceipt(receiver.last);
    expect(receipt).toMatchObject({ providerRef: uuid, status: 'delivered' });
    expect(receipt!.messageId).toBeUndefined();
  });

  it('an inbound SMS verifies and reads as a text in E.164; it is no receipt', async () => {
    const posted = await fake.postInbound(`${receiver.base}/providers/vonage/inbound`, 'Can we move it to 3pm?', TO, FROM);
    expect(posted.status).toBe(200);
    const callback = receiver.last;
    await expect(carrier.verify(callback)).resolves.toBe(true);
    const inbound = carrier.parseInbound(callback);
    expect(inbound).toMatchObject({ providerRef: posted.id, from: TO, to: FROM, text: 'Can we move it to 3pm?' });
    expect(inbound!.receivedAt).toBeInstanceOf(Date);
    expect(carrier.parseReceipt(callback)).toBeNull();
  });

  it('a body that is no JSON object cannot be read (the door answers 400)', () => {
    const callback: CarrierCallback = { url: 'http://x/providers/vonage/status', headers: {}, rawBody: Buffer.from('not json') };
    expect(() => carrier.parseReceipt(callback)).toThrow();
    expect(() => carrier.parseInbound({ ...callback, rawBody: Buffer.from('[1]') })).toThrow();
  });
});

describe("A2P registration through Vonage's 10DLC API (the SDK's own client, Basic key:secret) (issue 51)", () => {
  const LOCAL = '+14155550190';
  const withKey = () => createVonageCarrier(jwtSettings({ VONAGE_API_KEY: fake.apiKey, VONAGE_API_SECRET: fake.apiSecret }));

  it('reads a number linked to an active campaign of a verified brand as approved, with the documented requests', async () => {
    fake.registrations.set(LOCAL, 'approved');
    const seen = fake.registrations.requests.length;
    await expect(withKey().readRegistration!(LOCAL)).resolves.toEqual({
      kind: '10dlc',
      brand: { id: fake.registrations.brandId, status: 'approved' },
      campaign: { id: fake.registrations.campaignIdOf('approved'), useCase: 'CUSTOMER_CARE', status: 'approved' },
      tollFree: null,
    });
    const requests = fake.registrations.requests.slice(seen);
    const basic = `Basic ${Buffer.from(`${fake.apiKey}:${fake.apiSecret}`).toString('base64')}`;
    expect(requests.map((r) => r.path)).toEqual([
      '/v1/10dlc/brands',
      `/v1/10dlc/brands/${fake.registrations.brandId}/campaigns`,
      `/v1/10dlc/brands/${fake.registrations.brandId}/campaigns/${fake.registrations.campaignIdOf('approved')}/numbers`,
    ]);
    expect(requests.every((r) => r.authorization === basic && r.query.get('page') === '1' && r.query.get('page_size') === '100')).toBe(true);
  });

  it('reads a number whose link (and campaign) is still in review as pending, and a deleted brand as rejected', async () => {
    fake.registrations.set(LOCAL, 'pending');
    fake.registrations.brandStatus = 'DELETED';
    try {
      const read = await withKey().readRegistration!(LOCAL);
      expect(read.campaign).toEqual({ id: fake.registrations.campaignIdOf('pending'), useCase: 'CUSTOMER_CARE', status: 'pending' });
      expect(read.brand).toEqual({ id: fake.registrations.brandId, status: 'rejected' });
    } finally {
      fake.registrations.brandStatus = 'ACTIVE';
    }
  });

  it('reads a number linked to no campaign as in none (unregistered), a toll-free one as unknown (not in that API), and is unavailable with credentials Vonage refuses', async () => {
    fake.registrations.set(LOCAL, 'unregistered');
    await expect(withKey().readRegistration!(LOCAL)).resolves.toEqual({ kind: '10dlc', brand: null, campaign: null, tollFree: null });
    await expect(withKey().readRegistration!('+18885550100')).resolves.toEqual({ kind: 'toll_free', brand: null, campaign: null, tollFree: { status: 'unknown' } });
    const wrongSecret = createVonageCarrier(jwtSettings({ VONAGE_API_KEY: fake.apiKey, VONAGE_API_SECRET: 'not-the-secret' }));
    await expect(wrongSecret.readRegistration!(LOCAL)).rejects.toBeInstanceOf(CarrierUnavailable);
  });

  // Vonage's documented words (definitions/10dlc.yml 1.0.15: CampaignStatus, NumberStatus, the brand's
  // ACTIVE/DELETED and IdentityStatus; the dashboard's campaign statuses); any other word reads unknown.
  const readWith = (brandStatus: string, campaignStatus: string, linkStatus: string) => {
    const pages: Record<string, object> = {
      '/v1/10dlc/brands': { brands: [{ brand_id: 'B1', status: brandStatus }] },
      '/v1/10dlc/brands/B1/campaigns': { campaigns: [{ campaign_id: 'C1', brand_id: 'B1', usecase: 'MIXED', status: campaignStatus }] },
      '/v1/10dlc/brands/B1/campaigns/C1/numbers': { numbers: [{ number: LOCAL.slice(1), country: 'US', status: linkStatus }] },
    };
    const client: TenDlcGet = {
      sendGetRequest: async <T>(url: string) => ({ data: { page: 1, page_size: 100, total_pages: 1, total_items: 1, _embedded: pages[new URL(url).pathname] } as T }),
    };
    return vonageRegistration(client, 'https://vonage.test', LOCAL);
  };

  test.each<[string, string, string, string]>([
    ['an approved link to an active campaign', 'ACTIVE', 'APPROVED', 'approved'],
    ['a link still pending', 'ACTIVE', 'PENDING', 'pending'],
    ['a rejected link', 'ACTIVE', 'REJECTED', 'rejected'],
    ['a link Vonage says it cannot tell (UNKNOWN)', 'ACTIVE', 'UNKNOWN', 'unknown'],
    ['a link word Vonage does not document (LINKED)', 'ACTIVE', 'LINKED', 'unknown'],
    ['an expired campaign', 'EXPIRED', 'APPROVED', 'rejected'],
    ["a campaign in Vonage's review, as the dashboard words it", 'Pending Review', 'APPROVED', 'pending'],
    ['a campaign cancelled at the end of its paid period', 'PENDING_CANCELLATION', 'APPROVED', 'approved'],
    ['a campaign word Vonage does not document (PENDING)', 'PENDING', 'APPROVED', 'unknown'],
  ])('%s: campaign %s, link %s read as %s', async (_name, campaignStatus, linkStatus, status) => {
    expect((await readWith('ACTIVE', campaignStatus, linkStatus)).campaign).toEqual({ id: 'C1', useCase: 'MIXED', status });
  });

  test.each([
    ['ACTIVE', 'approved'],
    ['DELETED', 'rejected'],
    ['VETTED_VERIFIED', 'approved'],
    ['UNVERIFIED', 'rejected'],
    ['IN_REVIEW', 'unknown'],
  ])('a brand %s reads as %s', async (brandStatus, status) => {
    expect((await readWith(brandStatus, 'ACTIVE', 'APPROVED')).brand).toEqual({ id: 'B1', status });
  });

  it('is not read with an application JWT alone (the 10DLC API takes Basic only); an illegal sender address (1120) is final and has the number read again', () => {
    expect(carrier.readRegistration).toBeUndefined();
    expect(carrier.isRegistrationCode!('1120')).toBe(true);
    expect(carrier.isRegistrationCode!('1240')).toBe(false);
  });
});
