import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { createVonageCarrier } from '../../../src/carriers/vonage';
import { OPT_OUT_CONFIRMATION } from '../../../src/use-cases/carriers/keywords';
import { FakeVonage, VONAGE_MAGIC } from '../../support/fake-vonage';
import { carrierMessages, expectInvalidSignature, ownAccounts, PUBLIC_BASE_URL, startCarrierStack } from '../../support/carrier-messages';
import { eventually, expectProblem, phoneSequence, uniqueName, waitForStatus as waitForMessage } from '../../support/helpers';
import type { TestStack } from '../../support/stack';

/*
 * MESSAGE_PROVIDER=vonage end to end: the API accepts a message, the worker sends it through the
 * official SDK to a local Vonage Messages API (JWT of the application's key, made here), and the fake
 * posts Vonage's own webhooks, signed HS256 with the signature secret and the body's payload_hash, to the
 * URL it was given as `webhook_url` or to the application's inbound URL.
 *
 * Each `test.concurrent` test owns its message or phone: they run side by side, those at the top level
 * together, then those of the texts from clients. The throttled send (the fake's next answer,
 * whatever message it is for) and the business on its own account run alone (docs/design.md, "Suite:
 * concurrent tests inside a file").
 */
// A sender of its own: opt-outs are per (sender, number) across businesses, and other suites share the database.
const FROM = '+15557770300';
const PHONE = '+14155550142';
const digits = (e164: string) => e164.replace(/^\+/, '');

let fake: FakeVonage;
let stack: TestStack;
let token: string;
const ADMIN_TOKEN = randomBytes(24).toString('base64url');

beforeAll(async () => {
  fake = await new FakeVonage().start();
  const env = {
    MESSAGE_PROVIDER: 'vonage',
    ...fake.settings(FROM),
    PUBLIC_BASE_URL,
    ADMIN_TOKEN,
  };
  ({ stack, token } = await startCarrierStack(fake, env, createVonageCarrier(env), PHONE));
});
afterAll(async () => {
  await stack?.stop();
  await fake?.stop();
});

const { getMessage, waitForStatus, accepted, sent, eventTypesOf, optOutsFor, assignedClient, receivedByAssignedClient, postReminder, sentThrottled } = carrierMessages(() => ({ stack, token }));

test.concurrent('POST /messages → Vonage gets the documented request → its signed `delivered` status makes the message delivered, once', async () => {
  const message = await sent();
  const request = fake.sends.find((r) => r.body.client_ref === message._id)!;
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')![1]!;
  expect(jwt.decode(bearer, { complete: true })).toMatchObject({ header: { alg: 'RS256' }, payload: { application_id: fake.applicationId } });
  expect(request.headers['content-type']).toMatch(/^application\/json/);
  expect(request.body).toEqual({
    message_type: 'text',
    channel: 'sms',
    to: digits(PHONE),
    from: digits(FROM),
    text: 'Your order shipped',
    client_ref: message._id,
    webhook_url: `${PUBLIC_BASE_URL}/providers/vonage/status/${message._id}`,
  });
  expect(message).toEqual(expect.objectContaining({ provider: 'vonage', provider_ref: expect.any(String) }));
  expect(fake.message(message.provider_ref).to).toBe(digits(PHONE));

  expect((await fake.postStatus(message.provider_ref, 'submitted')).status).toBe(200);
  expect((await getMessage(message._id)).status).toBe('sent');
  expect((await fake.postStatus(message.provider_ref)).status).toBe(200);
  const delivered = await getMessage(message._id);
  expect(delivered).toEqual(expect.objectContaining({ status: 'delivered', delivered_at: expect.any(String), price: { amount: '0.0333', unit: 'EUR' }, error_code: null }));

  // Vonage retries its webhook: nothing changes, no second event.
  expect((await fake.postStatus(message.provider_ref)).status).toBe(200);
  expect(await getMessage(message._id)).toEqual(delivered);
  expect(await eventTypesOf(message._id)).toEqual(['message.scheduled', 'message.sending', 'message.sent', 'message.delivered']);
});

test.concurrent("unsigned, signed with another secret, over another body, replayed after 5 minutes or to another message's URL: 403 Invalid signature, and the message is unchanged", async () => {
  const [message, other] = [await sent(), await sent()];
  const url = `${PUBLIC_BASE_URL}/providers/vonage/status/${message._id}`;
  const body = fake.statusBody(fake.message(message.provider_ref), 'delivered');
  const bearer = (signature: string) => ({ authorization: `Bearer ${signature}` });

  const responses = [
    await fake.post(url, body, {}),
    await fake.post(url, body, bearer(fake.signature(body, { secret: 'another-secret-of-32-characters!' }))),
    await fake.post(url, body, bearer(fake.signature(body.replace('delivered', 'submitted')))),
    await fake.post(url, body, bearer(fake.signature(body, { iat: Math.floor(Date.now() / 1000) - 6 * 60 }))),
    // Another message's status, signed by Vonage, replayed to this message's URL.
    await fake.post(url, fake.statusBody(fake.message(other.provider_ref), 'delivered')),
  ];
  for (const res of responses) expectInvalidSignature(res);
  expect(await getMessage(message._id)).toEqual(message);
  expect(await eventTypesOf(message._id)).toEqual(['message.scheduled', 'message.sending', 'message.sent']);

  // The same body, signed now: delivered.
  expect((await fake.post(url, body)).status).toBe(200);
  expect((await getMessage(message._id)).status).toBe('delivered');
});

test.concurrent('out of order: `delivered` before `submitted`; the later `submitted` does not move it back', async () => {
  const message = await sent();
  expect((await fake.postStatus(message.provider_ref)).status).toBe(200);
  const delivered = await getMessage(message._id);
  expect(delivered.status).toBe('delivered');
  expect((await fake.postStatus(message.provider_ref, 'submitted')).status).toBe(200);
  expect(await getMessage(message._id)).toEqual(delivered);
});

test.concurrent("a status sent to the application's status URL (no id in it) finds the message by client_ref", async () => {
  const message = await sent();
  expect((await fake.postStatus(message.provider_ref, 'delivered', undefined, `${PUBLIC_BASE_URL}/providers/vonage/status`)).status).toBe(200);
  expect((await getMessage(message._id)).status).toBe('delivered');
});

test.concurrent('a status for a message we do not know is a 200 that changes nothing', async () => {
  const message = await sent();
  const stranger = { ...fake.message(message.provider_ref), message_uuid: '00000000-0000-4000-8000-000000000000', client_ref: undefined };
  const res = await fake.post(`${PUBLIC_BASE_URL}/providers/vonage/status`, fake.statusBody(stranger, 'delivered'));
  expect(res.status).toBe(200);
  expect((await getMessage(message._id)).status).toBe('sent');
});

test.concurrent("Vonage rejects the message after accepting it (opted-out recipient, 1240): it fails with Vonage's code, and the number is opted out for our sender", async () => {
  const message = await sent({ client_phone: VONAGE_MAGIC.optedOut });
  expect((await fake.postStatus(message.provider_ref)).status).toBe(200);
  expect(await getMessage(message._id)).toEqual(expect.objectContaining({ status: 'failed', error_code: '1240', delivered_at: null }));
  expect(await eventTypesOf(message._id)).toEqual(['message.scheduled', 'message.sending', 'message.sent', 'message.failed']);
  expect(await optOutsFor(VONAGE_MAGIC.optedOut, FROM)).toEqual([expect.objectContaining({ phone: VONAGE_MAGIC.optedOut, sender: FROM, status: 'opted_out', source: 'carrier', detail: '1240' })]);
  const again = await stack.api('POST', '/messages', { token, body: { message_type: 'text', text_message: 'Again', client_phone: VONAGE_MAGIC.optedOut } });
  expectProblem(again, 409, 'Recipient has opted out of text messages');
});

test.concurrent("Vonage refuses the number (422, 1170): the message fails, in our words, without Vonage's text", async () => {
  const id = await accepted({ client_phone: VONAGE_MAGIC.invalidTo });
  const failed = await waitForStatus(id, 'failed');
  expect(failed.error).toMatch(/recipient number is invalid/);
  expect(failed.error).toMatch(/1170/);
  expect(failed.error).not.toMatch(/5005550001|MSISDN/);
});

test('throttled (429 with Retry-After: 1): sent on the next attempt, once', async () => {
  const before = fake.sends.filter((r) => r.body.to === '14155550143').length;
  const message = await sentThrottled(() => fake.failNext({ status: 429, code: 'throttled', title: 'Rate Limit Hit', retryAfter: '1' }));
  expect(fake.sends.filter((r) => r.body.to === '14155550143').length - before).toBe(2);
  expect(fake.messages.get(message.provider_ref)?.client_ref).toBe(message._id);
  expect(message.attempts).toBe(2);
});

describe("texts from clients, to the application's inbound URL", () => {
  const inboundUrl = `${PUBLIC_BASE_URL}/providers/vonage/inbound`;
  const newPhone = phoneSequence('+1628555', 4000);
  const post = postReminder;

  test.concurrent('a signed STOP opts the number out: the next POST /messages is 409, a scheduled one ends suppressed, and our one confirmation goes out through Vonage', async () => {
    const phone = newPhone();
    await sent({ client_phone: phone });
    // Due 2 s on: the STOP, one request, lands before it (else it is sent, and the test fails).
    const scheduled = await post({ client_phone: phone, delay: '2s' });
    expect(scheduled.status).toBe(202);

    expect((await fake.postInbound(inboundUrl, ' stop ', phone, FROM)).status).toBe(200);
    expectProblem(await post({ client_phone: phone }), 409, 'Recipient has opted out of text messages');
    await eventually(async () => fake.sends.some((r) => r.body.to === digits(phone) && r.body.text === OPT_OUT_CONFIRMATION));
    expect(fake.sends.filter((r) => r.body.to === digits(phone) && r.body.client_ref === undefined).map((r) => r.body)).toEqual([
      { message_type: 'text', channel: 'sms', to: digits(phone), from: digits(FROM), text: OPT_OUT_CONFIRMATION },
    ]);

    const suppressed = await waitForStatus(scheduled.body._id, 'suppressed');
    expect(suppressed).toEqual(expect.objectContaining({ suppressed_reason: 'Recipient has opted out of text messages', sent_at: null }));
    expect(fake.sends.filter((r) => r.body.client_ref === scheduled.body._id)).toEqual([]);
    expect(await optOutsFor(phone, FROM)).toEqual([expect.objectContaining({ phone, sender: FROM, status: 'opted_out', source: 'keyword' })]);
  });

  test.concurrent('an unsigned STOP is a 403 and opts nobody out', async () => {
    const phone = newPhone();
    await sent({ client_phone: phone });
    const res = await fake.post(inboundUrl, fake.inboundBody('STOP', phone, FROM), {});
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toEqual(expect.objectContaining({ detail: 'Invalid signature' }));
    expect((await post({ client_phone: phone })).status).toBe(202);
  });

  test.concurrent('a signed reply is stored once and emits message.received naming the client and its assignments in force', async () => {
    const phone = newPhone();
    await assignedClient(phone);

    const reply = await fake.postInbound(inboundUrl, 'Running 10 minutes late 🙏', phone, FROM);
    expect(reply.status).toBe(200);
    // Vonage retries a webhook it got no 2xx for: the same message_uuid, signed again, is stored once.
    expect((await fake.post(inboundUrl, reply.sentBody)).status).toBe(200);

    const events = await receivedByAssignedClient();
    expect(events).toHaveLength(1);
    expect(events[0].data).toEqual(
      expect.objectContaining({ direction: 'inbound', status: 'received', client: 'c-replies', client_phone: phone, text_message: 'Running 10 minutes late 🙏', provider: 'vonage', provider_ref: reply.id }),
    );
    expect(events[0].data.assignments).toEqual([{ agent: 'ag-owner', dt_until: '2099-01-01T00:00:00.000Z', rotation: false, current_period: false }]);
    // An ordinary reply gets no automatic answer.
    expect(fake.sends.filter((r) => r.body.to === digits(phone) && r.body.client_ref === undefined)).toEqual([]);
  });
});

describe('a business on its own Vonage application: its callbacks are verified with its own signature secret', () => {
  // Numbers of this suite only: the test database is shared with suites running beside it.
  const prefix = `+1630${String(100 + Math.floor(Math.random() * 899))}`;
  const OWN_NUMBER = `${prefix}0001`;
  const OTHER_NUMBER = `${prefix}0002`;
  const own = uniqueName('own-vonage');
  const other = uniqueName('other-vonage');
  const { inBusiness, register } = ownAccounts(() => ({ stack }), ADMIN_TOKEN, 'vonage');
  const inboundUrl = `${PUBLIC_BASE_URL}/providers/vonage/inbound`;
  type Application = ReturnType<FakeVonage['addApplication']>;
  const signedBy = (body: string, application: Application) => ({
    authorization: `Bearer ${fake.signature(body, { secret: application.signatureSecret, apiKey: application.apiKey, applicationId: application.applicationId })}`,
  });

  test('its receipt and its reply are accepted signed with its secret; signed with the deployment\'s or another business\'s, 403 and nothing changes', async () => {
    const ownApp = fake.addApplication();
    const otherApp = fake.addApplication();
    const credentials = (app: Application) => ({ application_id: app.applicationId, private_key: app.privateKey, signature_secret: app.signatureSecret });
    expect((await register(own, OWN_NUMBER, { ...credentials(ownApp), signature_secret: '' })).status).toBe(400);
    expect((await register(own, OWN_NUMBER, credentials(ownApp))).status).toBe(200);
    expect((await register(other, OTHER_NUMBER, credentials(otherApp))).status).toBe(200);

    const phone = '+14155550191';
    const res = await inBusiness(own)('POST', '/messages', { token, body: { message_type: 'text', client_phone: phone, text_message: 'From our own application' } });
    expect(res.status).toBe(202);
    const message = await waitForMessage(inBusiness(own), token, res.body._id, 'sent');
    const request = fake.sends.find((r) => r.body.client_ref === message._id)!;
    expect(jwt.decode(/^Bearer (.+)$/.exec(request.headers.authorization ?? '')![1]!)).toMatchObject({ application_id: ownApp.applicationId });
    expect(request.body.from).toBe(digits(OWN_NUMBER));

    const sentMessage = fake.message(message.provider_ref);
    const url = sentMessage.webhook_url!;
    const delivered = fake.statusBody(sentMessage, 'delivered');
    expect((await fake.post(url, delivered)).status).toBe(403);
    expect((await fake.post(url, delivered, signedBy(delivered, otherApp))).status).toBe(403);
    // Signed by the other business's application, but about its own number: accepted, and it moves no message of ours.
    const aboutOther = fake.statusBody({ ...sentMessage, from: digits(OTHER_NUMBER) }, 'undeliverable');
    expect((await fake.post(url, aboutOther, signedBy(aboutOther, otherApp))).status).toBe(200);
    expect((await inBusiness(own)('GET', `/messages/${message._id}`, { token })).body.status).toBe('sent');
    expect((await fake.post(url, delivered, signedBy(delivered, ownApp))).status).toBe(200);
    expect((await inBusiness(own)('GET', `/messages/${message._id}`, { token })).body.status).toBe('delivered');

    const forged = fake.inboundBody('Forged reply', phone, OWN_NUMBER);
    expect((await fake.post(inboundUrl, forged)).status).toBe(403);
    expect((await fake.post(inboundUrl, forged, signedBy(forged, otherApp))).status).toBe(403);
    const reply = fake.inboundBody('Thanks, got it', phone, OWN_NUMBER);
    expect((await fake.post(inboundUrl, reply, signedBy(reply, ownApp))).status).toBe(200);
    const inbound = (await inBusiness(own)('GET', '/messages?direction=inbound', { token })).body.messages.map((m: any) => m.text_message);
    expect(inbound).toEqual(['Thanks, got it']);
    expect((await inBusiness(other)('GET', '/messages?direction=inbound', { token })).body.messages).toEqual([]);
  });

  test('a receipt names the number it went out from: one about another number moves nothing, even signed with the deployment\'s secret', async () => {
    const message = await sent();
    const sentMessage = fake.message(message.provider_ref);
    const aboutOther = fake.statusBody({ ...sentMessage, from: digits(OTHER_NUMBER).replace(/\d$/, '9') }, 'undeliverable');
    expect((await fake.post(sentMessage.webhook_url!, aboutOther)).status).toBe(200);
    expect((await getMessage(message._id)).status).toBe('sent');
    expect((await fake.postStatus(message.provider_ref, 'delivered')).status).toBe(200);
    expect((await getMessage(message._id)).status).toBe('delivered');
  });
});
