import { OUTSIDE_WHATSAPP_WINDOW } from '../../../src/domain/channels';
import { OPT_OUT_CONFIRMATION } from '../../../src/use-cases/carriers/keywords';
import { PUBLIC_BASE_URL } from '../../support/carrier-messages';
import { channelFlows, OUR_MEDIA, pictureBytes, startChannelsStack, withRcsNumber } from '../../support/channels-end-to-end';
import { FakeTelnyx, TELNYX_MAGIC } from '../../support/fake-telnyx';
import { inboundPayload } from '../../support/fake-telnyx-payloads';
import { eventually, expectProblem, phoneSequence } from '../../support/helpers';
import type { TestStack } from '../../support/stack';

/*
 * WhatsApp, MMS and RCS through the whole service on Telnyx (issues 40 and 51's "done when"): the API accepts, the
 * workflow sends through the telnyx SDK to the Telnyx fake (`POST /v2/messages` for MMS,
 * `POST /v2/messages/whatsapp` for WhatsApp, `POST /v2/messages/rcs` for RCS, last: a business number), and the fake posts its webhooks signed as Telnyx signs
 * them (Ed25519 over timestamp|body) to the public URL, which it forwards to the API.
 */
// A sender and phones of this suite only: opt-outs are per (sender, phone) across the businesses of the shared database.
const FROM = '+15558880300';
const newPhone = phoneSequence(`+1646${String(100 + Math.floor(Math.random() * 899))}`, 3000);
const inboundUrl = `${PUBLIC_BASE_URL}/providers/telnyx/inbound`;
const WHATSAPP_PATH = '/v2/messages/whatsapp';

let fake: FakeTelnyx;
let stack: TestStack;
let token: string;

beforeAll(async () => {
  fake = await new FakeTelnyx().start();
  ({ stack, token } = await startChannelsStack({
    MESSAGE_PROVIDER: 'telnyx',
    TELNYX_API_KEY: fake.apiKey,
    TELNYX_FROM: FROM,
    TELNYX_PUBLIC_KEY: fake.publicKey,
    TELNYX_API_URL: fake.url,
    PUBLIC_BASE_URL,
  }));
  fake.route(PUBLIC_BASE_URL, stack.baseUrl);
});
afterAll(async () => {
  await stack?.stop();
  await fake?.stop();
});

const flows = channelFlows(() => ({ stack, token }));
const { send, sent, getMessage, textedClient, lastInbound, putTemplate, expectTemplateRules, sentVisit, fetchMedia, eventTypesOf, optOutsOf, expectOutsideWindow } = flows;

const receiptsUrl = (message: { _id: string }) => `${PUBLIC_BASE_URL}/providers/telnyx/status/${message._id}`;
/** The request the fake took for a message (by the receipts' URL it names). */
const requestFor = (message: { _id: string }) => fake.sends.find((r) => r.body.webhook_url === receiptsUrl(message))!;

/** The client writes on WhatsApp (or by MMS), posted by the fake, signed. */
const clientWrites = async (type: 'WHATSAPP' | 'MMS', from: string, content: Parameters<FakeTelnyx['postInboundOn']>[4]) => {
  const answer = await fake.postInboundOn(type, inboundUrl, from, FROM, content);
  expect(answer.status).toBe(200);
  return answer;
};

/** A client texted once by SMS, then writing on WhatsApp: its window is open. */
async function whatsappClient(id: string, phone = newPhone()): Promise<string> {
  await textedClient(id, phone);
  await clientWrites('WHATSAPP', phone, { text: 'Can we talk here?' });
  return phone;
}

test("no window: a free WhatsApp text is a 409 and never reaches Telnyx; the client's WhatsApp message opens it and the reply goes to the WhatsApp endpoint; message.read makes it read", async () => {
  const phone = newPhone();
  await textedClient('c-window', phone);
  await expectOutsideWindow({ client: 'c-window' });
  expect(fake.sends.filter((r) => r.body.to === phone).map((r) => r.path)).toEqual(['/v2/messages']);
  // Unsigned, the client's WhatsApp message is refused and opens nothing.
  const forged = fake.eventBody('message.received', inboundPayload('WHATSAPP', fake.profileId, inboundUrl, phone, FROM, 'Forged'), inboundUrl);
  expect((await fake.post(inboundUrl, forged, {})).status).toBe(403);
  await expectOutsideWindow({ client: 'c-window' });

  await clientWrites('WHATSAPP', phone, { text: 'Can we talk here?' });
  expect(await lastInbound('c-window')).toMatchObject({ channel: 'whatsapp', client_phone: phone, text_message: 'Can we talk here?', media: [] });

  const reply = await sent({ client: 'c-window', channel: 'whatsapp', text_message: 'Of course!' });
  expect(reply).toMatchObject({ channel: 'whatsapp', provider: 'telnyx', template: null, read_at: null });
  const request = requestFor(reply);
  expect(request.path).toBe(WHATSAPP_PATH);
  expect(request.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
  expect(request.body).toEqual({ from: FROM, to: phone, type: 'WHATSAPP', whatsapp_message: { type: 'text', text: { body: 'Of course!' } }, webhook_url: receiptsUrl(reply) });

  expect((await fake.postFinalized(reply.provider_ref)).status).toBe(200);
  expect((await fake.postRead(reply.provider_ref)).status).toBe(200);
  expect(await getMessage(reply._id)).toMatchObject({ status: 'read', read_at: expect.any(String), delivered_at: expect.any(String) });
  expect(await eventTypesOf(reply._id)).toEqual(['message.scheduled', 'message.sending', 'message.sent', 'message.delivered', 'message.read']);
});

test("Telnyx's own refusal outside the window (delivery_failed, 131047) fails the message in our words", async () => {
  await whatsappClient('c-131047', TELNYX_MAGIC.outsideWindow);
  const message = await sent({ client: 'c-131047', channel: 'whatsapp', text_message: 'Hello again' });
  expect((await fake.postFinalized(message.provider_ref)).status).toBe(200);
  expect(await getMessage(message._id)).toMatchObject({ status: 'undelivered', error_code: '131047', error: expect.stringContaining(OUTSIDE_WHATSAPP_WINDOW) });
});

test("templates by name and language, the business's word their approval: consent first, every variable; it goes as a WhatsApp template with its body parameters in order", async () => {
  expect(await putTemplate('visit', { name: 'visit_reminder', language: 'en_US' })).toMatchObject({ _id: 'visit', name: 'visit_reminder', language: 'en_US', content_sid: null, approval: 'approved' });
  const phone = newPhone();
  await expectTemplateRules('c-tpl', phone);
  const message = await sentVisit('c-tpl');
  const request = requestFor(message);
  expect(request.path).toBe(WHATSAPP_PATH);
  expect(request.body).toEqual({
    from: FROM,
    to: phone,
    type: 'WHATSAPP',
    whatsapp_message: {
      type: 'template',
      template: { name: 'visit_reminder', language: { policy: 'deterministic', code: 'en_US' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ada' }, { type: 'text', text: 'Tuesday' }] }] },
    },
    webhook_url: receiptsUrl(message),
  });
  expect((await fake.postFinalized(message.provider_ref)).status).toBe(200);
  expect((await getMessage(message._id)).status).toBe('delivered');
});

test('an MMS goes to POST /v2/messages with its media_urls beside its text', async () => {
  const phone = newPhone();
  const message = await sent({ client_phone: phone, text_message: 'Our menu and how to find us', media: OUR_MEDIA });
  expect(message).toMatchObject({ channel: 'sms', media: OUR_MEDIA });
  const request = requestFor(message);
  expect(request.path).toBe('/v2/messages');
  expect(request.body).toEqual({ to: phone, from: FROM, text: 'Our menu and how to find us', media_urls: OUR_MEDIA.map((m) => m.url), webhook_url: receiptsUrl(message), use_profile_webhooks: false });
  expect(fake.message(message.provider_ref).type).toBe('MMS');
});

test("a client's files, by MMS and on WhatsApp, are streamed through the API from Telnyx's media link, byte for byte", async () => {
  const phone = await whatsappClient('c-files');
  for (const type of ['MMS', 'WHATSAPP'] as const) {
    const bytes = pictureBytes();
    const caption = `A photo by ${type}`;
    const posted = await clientWrites(type, phone, { text: caption, files: [{ bytes, contentType: 'image/jpeg', kind: 'image', caption }] });
    const inbound = await lastInbound('c-files');
    expect(inbound).toMatchObject({ channel: type === 'MMS' ? 'sms' : 'whatsapp', text_message: caption, media: [{ url: `/ext/v2/${stack.business}/messages/${inbound._id}/media/0`, content_type: 'image/jpeg', size: bytes.length }] });

    const before = fake.requests.length;
    expect(await fetchMedia(inbound)).toEqual({ status: 200, contentType: 'image/jpeg', bytes });
    const [asked] = fake.requests.slice(before);
    expect(`${fake.url.replace(/\/v2$/, '')}${asked.path}`).toBe(posted.mediaUrls[0]);
    // Telnyx's media links serve the file by themselves: the API key is not sent with them.
    expect(asked.headers.authorization).toBeUndefined();
  }
});

test('a STOP on WhatsApp opts the client out of WhatsApp only: the confirmation goes back on WhatsApp, WhatsApp sends are refused, SMS still goes', async () => {
  const phone = await whatsappClient('c-stop');
  await clientWrites('WHATSAPP', phone, { text: 'STOP' });
  const confirmation = await eventually(async () => fake.sends.find((r) => r.body.to === phone && r.body.whatsapp_message?.text?.body === OPT_OUT_CONFIRMATION));
  expect(confirmation).toMatchObject({ path: WHATSAPP_PATH, body: { from: FROM, to: phone, whatsapp_message: { type: 'text', text: { body: OPT_OUT_CONFIRMATION } } } });
  expect(await optOutsOf(phone)).toEqual([expect.objectContaining({ phone, sender: FROM, channel: 'whatsapp', status: 'opted_out', source: 'keyword' })]);

  expectProblem(await send({ client: 'c-stop', channel: 'whatsapp', text_message: 'Are you sure?' }), 409, 'Recipient has opted out of WhatsApp messages');
  const sms = await sent({ client: 'c-stop', text_message: 'Your order shipped' });
  expect(requestFor(sms)).toMatchObject({ path: '/v2/messages', body: { to: phone, from: FROM, text: 'Your order shipped' } });
});

test('RCS from a business number with its agent: POST /v2/messages/rcs with the SMS fallback; RCS to a capable handset is delivered and read as RCS, to an incapable one as SMS; a tap reaches the conversation; STOP on RCS stops SMS', async () => {
  const number = '+15558880301';
  await withRcsNumber(stack, { number, carrier: 'telnyx', rcsAgent: 'fake_rcs_agent', messagingServiceSid: fake.profileId }, async () => {
    const phone = newPhone();
    expect((await flows.api('POST', '/clients', { _id: 'c-rcs', name: 'Ada', phone })).status).toBe(201);
    const message = await sent({ client: 'c-rcs', channel: 'rcs', text_message: 'Table at 7?', suggestions: [{ text: 'Yes', postback_data: 'confirm' }] });
    expect(requestFor(message)).toMatchObject({
      path: '/v2/messages/rcs',
      body: { agent_id: 'fake_rcs_agent', to: phone, messaging_profile_id: fake.profileId, agent_message: { content_message: { text: 'Table at 7?', suggestions: [{ reply: { text: 'Yes', postback_data: 'confirm' } }] } }, sms_fallback: { from: number, text: 'Table at 7?' } },
    });
    expect((await fake.postFinalized(message.provider_ref)).status).toBe(200);
    expect((await fake.postRead(message.provider_ref)).status).toBe(200);
    expect(await getMessage(message._id)).toMatchObject({ status: 'read', channel: 'rcs', delivered_channel: 'rcs', from: number });

    const incapable = newPhone();
    fake.rcsIncapable.add(incapable);
    const fallback = await sent({ client_phone: incapable, channel: 'rcs', text_message: 'Table at 7?' });
    expect((await fake.postFinalized(fallback.provider_ref)).status).toBe(200);
    expect(await getMessage(fallback._id)).toMatchObject({ status: 'delivered', delivered_channel: 'sms' });

    expect((await fake.postInboundRcs(inboundUrl, phone, 'fake_rcs_agent', { tap: { text: 'Yes', postback_data: 'confirm' } })).status).toBe(200);
    expect(await lastInbound('c-rcs')).toMatchObject({ channel: 'rcs', text_message: 'Yes', to: number, suggestions: [{ text: 'Yes', postback_data: 'confirm' }], conversation: message.conversation });

    expect((await fake.postInboundRcs(inboundUrl, phone, 'fake_rcs_agent', { text: 'STOP' })).status).toBe(200);
    expectProblem(await send({ client: 'c-rcs', text_message: 'Are you sure?' }), 409, 'Recipient has opted out of text messages');
    expectProblem(await send({ client: 'c-rcs', channel: 'rcs', text_message: 'Are you sure?' }), 409, 'Recipient has opted out of text messages');
  });
});
