import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createTelnyxCarrier } from '../../../src/carriers/telnyx';
import { OPT_IN_CONFIRMATION, OPT_OUT_CONFIRMATION } from '../../../src/use-cases/carriers/keywords';
import { FakeTelnyx, TELNYX_MAGIC } from '../../support/fake-telnyx';
import { carrierMessages, expectInvalidSignature, ownAccounts, PUBLIC_BASE_URL, startCarrierStack } from '../../support/carrier-messages';
import { eventually, expectProblem, phoneSequence, uniqueName, waitForStatus as waitForMessage } from '../../support/helpers';
import type { TestStack } from '../../support/stack';

/*
 * MESSAGE_PROVIDER=telnyx end to end: the API accepts a message, the worker sends it through the
 * official SDK to a local Telnyx API, and the fake posts Telnyx's own webhooks, signed with Ed25519 by a
 * key made here, to the URL it was given as `webhook_url`.
 *
 * Each `test.concurrent` test owns its message or phone: they run side by side, those at the top level
 * together, then those of the texts from clients. The throttled send (the fake's next answer,
 * whatever message it is for) and the business on its own account run alone (docs/design.md, "Suite:
 * concurrent tests inside a file").
 */
const FROM = '+15557770000';
const PHONE = '+14155550142';

let fake: FakeTelnyx;
let stack: TestStack;
let token: string;
const ADMIN_TOKEN = randomBytes(24).toString('base64url');

beforeAll(async () => {
  fake = await new FakeTelnyx().start();
  const env = { MESSAGE_PROVIDER: 'telnyx', TELNYX_API_KEY: fake.apiKey, TELNYX_FROM: FROM, TELNYX_PUBLIC_KEY: fake.publicKey, TELNYX_API_URL: fake.url, PUBLIC_BASE_URL, ADMIN_TOKEN };
  ({ stack, token } = await startCarrierStack(fake, env, createTelnyxCarrier(env), PHONE));
});
afterAll(async () => {
  await stack?.stop();
  await fake?.stop();
});

const { getMessage, waitForStatus, accepted, sent, eventTypesOf, optOutsFor, assignedClient, receivedByAssignedClient, postReminder, sentThrottled } = carrierMessages(() => ({ stack, token }));

test.concurrent('POST /messages → Telnyx gets the documented request → its signed message.finalized makes the message delivered, once', async () => {
  const message = await sent();
  const request = fake.sends.find((r) => r.body.webhook_url?.endsWith(`/${message._id}`))!;
  expect(request.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
  expect(request.headers['content-type']).toMatch(/^application\/json/);
  expect(request.body).toEqual({ to: PHONE, from: FROM, text: 'Your order shipped', webhook_url: `${PUBLIC_BASE_URL}/providers/telnyx/status/${message._id}`, use_profile_webhooks: false });
  expect(message).toEqual(expect.objectContaining({ provider: 'telnyx', provider_ref: expect.any(String) }));
  expect(fake.message(message.provider_ref).to).toBe(PHONE);

  expect((await fake.postSent(message.provider_ref)).status).toBe(200);
  expect((await getMessage(message._id)).status).toBe('sent');
  const finalized = await fake.postFinalized(message.provider_ref);
  expect(finalized.status).toBe(200);
  const delivered = await getMessage(message._id);
  expect(delivered).toEqual(expect.objectContaining({ status: 'delivered', delivered_at: expect.any(String), price: { amount: '0.0040', unit: 'USD' }, error_code: null }));

  // Telnyx retries its webhook: nothing changes, no second event.
  expect((await fake.postFinalized(message.provider_ref)).status).toBe(200);
  expect(await getMessage(message._id)).toEqual(delivered);
  expect(await eventTypesOf(message._id)).toEqual(['message.scheduled', 'message.sending', 'message.sent', 'message.delivered']);
});

test.concurrent('unsigned, signed by another key, or replayed after 5 minutes: 403 Invalid signature, and the message is unchanged', async () => {
  const message = await sent();
  const url = `${stack.baseUrl.replace(/\/ext\/v2\/.*$/, '')}/providers/telnyx/status/${message._id}`;
  const body = fake.eventBody('message.finalized', fake.outboundPayload(fake.message(message.provider_ref), 'delivered'), url);

  const responses = [
    await fake.post(url, body, {}),
    await fake.post(url, body, fake.signatureHeaders(body, undefined, generateKeyPairSync('ed25519').privateKey)),
    await fake.post(url, body, fake.signatureHeaders(body, Math.floor(Date.now() / 1000) - 6 * 60)),
  ];
  for (const res of responses) expectInvalidSignature(res);
  expect(await getMessage(message._id)).toEqual(message);
  expect(await eventTypesOf(message._id)).toEqual(['message.scheduled', 'message.sending', 'message.sent']);

  // The same body, signed now: delivered.
  expect((await fake.post(url, body)).status).toBe(200);
  expect((await getMessage(message._id)).status).toBe('delivered');
});

test.concurrent('out of order: message.finalized before message.sent; the later `sent` does not move it back', async () => {
  const message = await sent();
  expect((await fake.postFinalized(message.provider_ref)).status).toBe(200);
  const delivered = await getMessage(message._id);
  expect(delivered.status).toBe('delivered');
  expect((await fake.postSent(message.provider_ref)).status).toBe(200);
  expect(await getMessage(message._id)).toEqual(delivered);
});

test.concurrent("a number Telnyx cannot route: delivery_failed with 40001 → undelivered, Telnyx's code kept", async () => {
  await stack.api('POST', '/clients', { token, body: { _id: 'c-landline', name: 'Landline', phone: TELNYX_MAGIC.notRoutable } });
  const message = await sent({ client: 'c-landline' });
  expect((await fake.postFinalized(message.provider_ref)).status).toBe(200);
  expect(await getMessage(message._id)).toEqual(expect.objectContaining({ status: 'undelivered', error_code: '40001', delivered_at: null }));
  expect(await eventTypesOf(message._id)).toEqual(['message.scheduled', 'message.sending', 'message.sent', 'message.undelivered']);
});

test.concurrent("Telnyx refuses the number (40310): the message fails, in our words, without Telnyx's text", async () => {
  const id = await accepted({ client_phone: TELNYX_MAGIC.invalidTo });
  const failed = await waitForStatus(id, 'failed');
  expect(failed.error).toMatch(/recipient number is invalid/);
  expect(failed.error).toMatch(/40310/);
  expect(failed.error).not.toMatch(/5005550001|Invalid 'to' address/);
});

test('throttled (429 with Retry-After: 1): sent on the next attempt, once', async () => {
  const before = fake.sends.filter((r) => r.body.to === '+14155550143').length;
  const message = await sentThrottled(() => fake.failNext({ status: 429, code: '10011', title: 'Too many requests', retryAfter: '1' }));
  expect(fake.sends.filter((r) => r.body.to === '+14155550143').length - before).toBe(2);
  expect(fake.messages.get(message.provider_ref)?.to).toBe('+14155550143');
  expect(message.attempts).toBe(2);
});

describe('texts from clients: message.received to the messaging profile\'s inbound webhook', () => {
  const inboundUrl = `${PUBLIC_BASE_URL}/providers/telnyx/inbound`;
  const newPhone = phoneSequence('+1628555', 3000);
  const post = postReminder;

  test.concurrent('a signed STOP opts the number out: the next POST /messages is 409, a scheduled one ends suppressed; our confirmation meets Telnyx\'s own block (40300) and changes nothing', async () => {
    const phone = newPhone();
    await sent({ client_phone: phone });
    // Due 2 s on: the STOP, one request, lands before it (else it is sent, and the test fails).
    const scheduled = await post({ client_phone: phone, delay: '2s' });
    expect(scheduled.status).toBe(202);

    expect((await fake.postInbound(inboundUrl, ' stop ', phone, FROM)).status).toBe(200);
    expectProblem(await post({ client_phone: phone }), 409, 'Recipient has opted out of text messages');
    // Telnyx blocks the number on the profile as the STOP arrives: our one confirmation was tried and refused there.
    await eventually(async () => fake.sends.some((r) => r.body.to === phone && r.body.text === OPT_OUT_CONFIRMATION));
    expect(fake.sends.filter((r) => r.body.to === phone && r.body.webhook_url === undefined).map((r) => r.body)).toEqual([{ to: phone, from: FROM, text: OPT_OUT_CONFIRMATION, use_profile_webhooks: false }]);

    const suppressed = await waitForStatus(scheduled.body._id, 'suppressed');
    expect(suppressed).toEqual(expect.objectContaining({ suppressed_reason: 'Recipient has opted out of text messages', sent_at: null }));
    expect(fake.sends.filter((r) => r.body.webhook_url?.endsWith(`/${scheduled.body._id}`))).toEqual([]);
    expect(await optOutsFor(phone, FROM)).toEqual([expect.objectContaining({ phone, sender: FROM, status: 'opted_out', source: 'keyword' })]);
  });

  test.concurrent('a signed START opts the number back in: Telnyx lifts its block, our confirmation goes out, and messages are sent again', async () => {
    const phone = newPhone();
    await sent({ client_phone: phone });
    expect((await fake.postInbound(inboundUrl, 'STOP', phone, FROM)).status).toBe(200);
    expectProblem(await post({ client_phone: phone }), 409, 'Recipient has opted out of text messages');

    expect((await fake.postInbound(inboundUrl, 'Start', phone, FROM)).status).toBe(200);
    await eventually(async () => fake.sends.some((r) => r.body.to === phone && r.body.text === OPT_IN_CONFIRMATION));
    expect(fake.blocked.has(phone)).toBe(false);
    expect([...fake.messages.values()].filter((m) => m.to === phone && m.text === OPT_IN_CONFIRMATION)).toHaveLength(1);
    const again = await post({ client_phone: phone });
    expect(again.status).toBe(202);
    await waitForStatus(again.body._id, 'sent');
  });

  test.concurrent('an unsigned STOP is a 403 and opts nobody out', async () => {
    const phone = newPhone();
    await sent({ client_phone: phone });
    const body = fake.eventBody('message.received', { id: 'forged-1', from: { phone_number: phone }, to: [{ phone_number: FROM }], text: 'STOP' }, inboundUrl);
    const res = await fake.post(inboundUrl, body, {});
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toEqual(expect.objectContaining({ detail: 'Invalid signature' }));
    expect((await post({ client_phone: phone })).status).toBe(202);
  });

  test.concurrent("Telnyx's own STOP block (40300) fails the send with its code and records the opt-out", async () => {
    const id = await accepted({ client_phone: TELNYX_MAGIC.stopped });
    const failed = await waitForStatus(id, 'failed');
    expect(failed).toEqual(expect.objectContaining({ error_code: '40300' }));
    expect(await optOutsFor(TELNYX_MAGIC.stopped, FROM)).toEqual([expect.objectContaining({ sender: FROM, status: 'opted_out', source: 'carrier', detail: '40300' })]);
    expectProblem(await post({ client_phone: TELNYX_MAGIC.stopped }), 409, 'Recipient has opted out of text messages');
  });

  test.concurrent('a signed reply is stored once and emits message.received naming the client and its assignments in force', async () => {
    const phone = newPhone();
    await assignedClient(phone);

    const reply = await fake.postInbound(inboundUrl, 'Running 10 minutes late 🙏', phone, FROM);
    expect(reply.status).toBe(200);
    // Telnyx retries a webhook it got no 2xx for, or twice anyway: stored once.
    const signedAgain = fake.eventBody('message.received', JSON.parse(reply.sentBody).data.payload, inboundUrl);
    expect((await fake.post(inboundUrl, signedAgain)).status).toBe(200);

    const events = await receivedByAssignedClient();
    expect(events).toHaveLength(1);
    expect(events[0].data).toEqual(
      expect.objectContaining({ direction: 'inbound', status: 'received', client: 'c-replies', client_phone: phone, text_message: 'Running 10 minutes late 🙏', provider: 'telnyx', provider_ref: reply.id }),
    );
    expect(events[0].data.assignments).toEqual([{ agent: 'ag-owner', dt_until: '2099-01-01T00:00:00.000Z', rotation: false, current_period: false }]);
    // An ordinary reply gets no automatic answer.
    expect(fake.sends.filter((r) => r.body.to === phone && r.body.webhook_url === undefined)).toEqual([]);
  });
});

describe('a business on its own Telnyx account: its callbacks are verified with its own public key', () => {
  // Numbers of this suite only: the test database is shared with suites running beside it.
  const prefix = `+1629${String(100 + Math.floor(Math.random() * 899))}`;
  const OWN_NUMBER = `${prefix}0001`;
  const OTHER_NUMBER = `${prefix}0002`;
  const own = uniqueName('own-telnyx');
  const other = uniqueName('other-telnyx');
  const { origin, inBusiness, register } = ownAccounts(() => ({ stack }), ADMIN_TOKEN, 'telnyx');
  const inboundUrl = `${PUBLIC_BASE_URL}/providers/telnyx/inbound`;
  const textTo = (to: string, from: string, text: string) => fake.eventBody('message.received', { id: randomUUID(), from: { phone_number: from }, to: [{ phone_number: to }], text }, inboundUrl);

  test('the credentials take the account\'s public key, checked like TELNYX_PUBLIC_KEY', async () => {
    const account = fake.addAccount();
    expect(await register(own, OWN_NUMBER, { api_key: account.apiKey, public_key: 'not-a-key' })).toEqual({
      status: 400,
      body: expect.objectContaining({ detail: 'Invalid credentials.public_key: must be the base64 Ed25519 public key from the Telnyx portal (32 bytes)' }),
    });
    expect((await register(own, OWN_NUMBER, { api_key: account.apiKey })).status).toBe(400);
    expect((await fetch(`${origin()}/admin/businesses/${own}/numbers`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((res) => res.json()) as any).numbers).toEqual([]);
  });

  test('its receipt and its reply are accepted signed with its key; signed with the deployment\'s or another business\'s, 403 and nothing changes', async () => {
    const ownAccount = fake.addAccount();
    const otherAccount = fake.addAccount();
    expect((await register(own, OWN_NUMBER, { api_key: ownAccount.apiKey, public_key: ownAccount.publicKey })).status).toBe(200);
    expect((await register(other, OTHER_NUMBER, { api_key: otherAccount.apiKey, public_key: otherAccount.publicKey })).status).toBe(200);

    const phone = '+14155550190';
    const res = await inBusiness(own)('POST', '/messages', { token, body: { message_type: 'text', client_phone: phone, text_message: 'From our own account' } });
    expect(res.status).toBe(202);
    const message = await waitForMessage(inBusiness(own), token, res.body._id, 'sent');
    const request = fake.sends.find((r) => r.body.webhook_url?.endsWith(`/${message._id}`))!;
    expect(request.headers.authorization).toBe(`Bearer ${ownAccount.apiKey}`);
    expect(request.body.from).toBe(OWN_NUMBER);

    const sentMessage = fake.message(message.provider_ref);
    const url = sentMessage.webhook_url!;
    const finalized = fake.eventBody('message.finalized', fake.outboundPayload(sentMessage, 'delivered'), url);
    expect((await fake.post(url, finalized)).status).toBe(403);
    expect((await fake.post(url, finalized, fake.signatureHeaders(finalized, undefined, otherAccount.privateKey))).status).toBe(403);
    // Signed by the other business's account, but about its own number: accepted, and it moves no message of ours.
    const aboutOther = fake.eventBody('message.finalized', fake.outboundPayload({ ...sentMessage, from: OTHER_NUMBER }, 'delivery_failed', [{ code: '40001', title: 'Not routable' }]), url);
    expect((await fake.post(url, aboutOther, fake.signatureHeaders(aboutOther, undefined, otherAccount.privateKey))).status).toBe(200);
    expect((await inBusiness(own)('GET', `/messages/${message._id}`, { token })).body.status).toBe('sent');
    expect((await fake.post(url, finalized, fake.signatureHeaders(finalized, undefined, ownAccount.privateKey))).status).toBe(200);
    expect((await inBusiness(own)('GET', `/messages/${message._id}`, { token })).body.status).toBe('delivered');

    const forged = textTo(OWN_NUMBER, phone, 'Forged reply');
    expect((await fake.post(inboundUrl, forged)).status).toBe(403);
    expect((await fake.post(inboundUrl, forged, fake.signatureHeaders(forged, undefined, otherAccount.privateKey))).status).toBe(403);
    const reply = textTo(OWN_NUMBER, phone, 'Thanks, got it');
    expect((await fake.post(inboundUrl, reply, fake.signatureHeaders(reply, undefined, ownAccount.privateKey))).status).toBe(200);
    const inbound = (await inBusiness(own)('GET', '/messages?direction=inbound', { token })).body.messages.map((m: any) => m.text_message);
    expect(inbound).toEqual(['Thanks, got it']);
    expect((await inBusiness(other)('GET', '/messages?direction=inbound', { token })).body.messages).toEqual([]);
  });
});
