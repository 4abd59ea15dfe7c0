import jwt from 'jsonwebtoken';
import { OUTSIDE_WHATSAPP_WINDOW } from '../../../src/domain/channels';
import { OPT_OUT_CONFIRMATION } from '../../../src/use-cases/carriers/keywords';
import { PUBLIC_BASE_URL } from '../../support/carrier-messages';
import { channelFlows, OUR_MEDIA, pictureBytes, startChannelsStack, withRcsNumber } from '../../support/channels-end-to-end';
import { FakeVonage, VONAGE_MAGIC } from '../../support/fake-vonage';
import { vonageInboundBody } from '../../support/fake-vonage-inbound';
import { eventually, expectProblem, phoneSequence } from '../../support/helpers';
import type { TestStack } from '../../support/stack';

/*
 * WhatsApp and MMS through the whole service on Vonage (issue 40's "done when"): the API accepts, the
 * workflow sends through @vonage/server-sdk to the Vonage fake's Messages API (the application's JWT),
 * and the fake posts its status and inbound webhooks signed as Vonage signs them (HS256 JWT with the
 * body's payload_hash) to the public URL, which it forwards to the API.
 */
// A sender and phones of this suite only: opt-outs are per (sender, phone) across the businesses of the shared database.
const FROM = '+15558880200';
const newPhone = phoneSequence(`+1646${String(100 + Math.floor(Math.random() * 899))}`, 2000);
const digits = (e164: string) => e164.replace(/^\+/, '');
const inboundUrl = `${PUBLIC_BASE_URL}/providers/vonage/inbound`;

let fake: FakeVonage;
let stack: TestStack;
let token: string;

beforeAll(async () => {
  fake = await new FakeVonage().start();
  ({ stack, token } = await startChannelsStack({
    MESSAGE_PROVIDER: 'vonage',
    ...fake.settings(FROM),
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

/** The request the fake took for a message (by its client_ref). */
const requestFor = (message: { _id: string }) => fake.sends.find((r) => r.body.client_ref === message._id)!;
/** Our message's own fields in every request: its reference and its receipts' URL. */
const ours = (message: { _id: string }) => ({ client_ref: message._id, webhook_url: `${PUBLIC_BASE_URL}/providers/vonage/status/${message._id}` });

/** The client writes on WhatsApp (or by MMS), posted by the fake, signed. */
const clientWrites = async (channel: 'whatsapp' | 'mms', from: string, content: Parameters<FakeVonage['postInboundOn']>[4]) => {
  const answer = await fake.postInboundOn(channel, inboundUrl, from, FROM, content);
  expect(answer.status).toBe(200);
  return answer;
};

/** A client texted once by SMS, then writing on WhatsApp: its window is open. */
async function whatsappClient(id: string, phone = newPhone()): Promise<string> {
  await textedClient(id, phone);
  await clientWrites('whatsapp', phone, { text: 'Can we talk here?' });
  return phone;
}

test("no window: a free WhatsApp text is a 409 and never reaches Vonage; the client's WhatsApp message opens it and the reply goes on channel whatsapp; a read status makes it read", async () => {
  const phone = newPhone();
  await textedClient('c-window', phone);
  await expectOutsideWindow({ client: 'c-window' });
  expect(fake.sends.filter((r) => r.body.to === digits(phone)).map((r) => r.body.channel)).toEqual(['sms']);
  // Unsigned, the client's WhatsApp message is refused and opens nothing.
  expect((await fake.post(inboundUrl, vonageInboundBody('whatsapp', phone, FROM, { text: 'Forged' }), {})).status).toBe(403);
  await expectOutsideWindow({ client: 'c-window' });

  await clientWrites('whatsapp', phone, { text: 'Can we talk here?' });
  expect(await lastInbound('c-window')).toMatchObject({ channel: 'whatsapp', client_phone: phone, text_message: 'Can we talk here?', media: [] });

  const reply = await sent({ client: 'c-window', channel: 'whatsapp', text_message: 'Of course!' });
  expect(reply).toMatchObject({ channel: 'whatsapp', provider: 'vonage', template: null, read_at: null });
  const request = requestFor(reply);
  expect(jwt.decode(/^Bearer (.+)$/.exec(request.headers.authorization ?? '')![1]!)).toMatchObject({ application_id: fake.applicationId });
  expect(request.body).toEqual({ channel: 'whatsapp', message_type: 'text', to: digits(phone), from: digits(FROM), text: 'Of course!', ...ours(reply) });

  expect((await fake.postStatus(reply.provider_ref, 'delivered')).status).toBe(200);
  expect((await fake.postStatus(reply.provider_ref, 'read')).status).toBe(200);
  expect(await getMessage(reply._id)).toMatchObject({ status: 'read', read_at: expect.any(String), delivered_at: expect.any(String) });
  expect(await eventTypesOf(reply._id)).toEqual(['message.scheduled', 'message.sending', 'message.sent', 'message.delivered', 'message.read']);
});

test("Vonage's own refusal outside the window (rejected, 1340) fails the message in our words", async () => {
  await whatsappClient('c-1340', VONAGE_MAGIC.outsideWindow);
  const message = await sent({ client: 'c-1340', channel: 'whatsapp', text_message: 'Hello again' });
  expect((await fake.postStatus(message.provider_ref)).status).toBe(200);
  expect(await getMessage(message._id)).toMatchObject({ status: 'failed', error_code: '1340', error: expect.stringContaining(OUTSIDE_WHATSAPP_WINDOW) });
});

test('templates by name and language, the business\'s word their approval: consent first, every variable; it goes as a template with its parameters in order', async () => {
  expect(await putTemplate('visit', { name: 'visit_reminder', language: 'en_US' })).toMatchObject({ _id: 'visit', name: 'visit_reminder', language: 'en_US', content_sid: null, approval: 'approved' });
  const phone = newPhone();
  await expectTemplateRules('c-tpl', phone);
  const message = await sentVisit('c-tpl');
  expect(requestFor(message).body).toEqual({
    channel: 'whatsapp',
    message_type: 'template',
    to: digits(phone),
    from: digits(FROM),
    template: { name: 'visit_reminder', parameters: ['Ada', 'Tuesday'] },
    whatsapp: { policy: 'deterministic', locale: 'en_US' },
    ...ours(message),
  });
  // A template goes outside the window: Vonage does not refuse it.
  expect((await fake.postStatus(message.provider_ref)).status).toBe(200);
  expect((await getMessage(message._id)).status).toBe('delivered');
});

test('an MMS goes on channel mms: one file as its type with the text as caption, several as a content message', async () => {
  const phone = newPhone();
  const one = await sent({ client_phone: phone, text_message: 'Our menu', media: OUR_MEDIA.slice(0, 1) });
  expect(one).toMatchObject({ channel: 'sms', media: OUR_MEDIA.slice(0, 1) });
  expect(requestFor(one).body).toEqual({ channel: 'mms', message_type: 'image', to: digits(phone), from: digits(FROM), image: { url: OUR_MEDIA[0].url, caption: 'Our menu' }, ...ours(one) });

  const two = await sent({ client_phone: phone, text_message: 'Our menu and how to find us', media: OUR_MEDIA });
  expect(requestFor(two).body).toEqual({
    channel: 'mms',
    message_type: 'content',
    to: digits(phone),
    from: digits(FROM),
    content: [
      { type: 'image', url: OUR_MEDIA[0].url, caption: 'Our menu and how to find us' },
      { type: 'image', url: OUR_MEDIA[1].url },
    ],
    ...ours(two),
  });
});

test("a client's files, by MMS and on WhatsApp, are streamed through the API with the application's JWT, byte for byte", async () => {
  const phone = await whatsappClient('c-files');
  for (const channel of ['mms', 'whatsapp'] as const) {
    const bytes = pictureBytes();
    await clientWrites(channel, phone, { file: { bytes, contentType: 'image/jpeg', kind: 'image', caption: `A photo by ${channel}` } });
    const inbound = await lastInbound('c-files');
    expect(inbound).toMatchObject({ channel: channel === 'mms' ? 'sms' : 'whatsapp', text_message: `A photo by ${channel}`, media: [{ url: `/ext/v2/${stack.business}/messages/${inbound._id}/media/0` }] });

    const before = fake.requests.length;
    expect(await fetchMedia(inbound)).toEqual({ status: 200, contentType: 'image/jpeg', bytes });
    const [asked] = fake.requests.slice(before);
    expect(asked).toMatchObject({ method: 'GET', path: expect.stringMatching(/^\/v3\/media\/[0-9a-f-]{36}$/) });
    expect(jwt.decode(/^Bearer (.+)$/.exec(asked.headers.authorization ?? '')![1]!)).toMatchObject({ application_id: fake.applicationId });
  }
});

test('a STOP on WhatsApp opts the client out of WhatsApp only: the confirmation goes back on WhatsApp, WhatsApp sends are refused, SMS still goes', async () => {
  const phone = await whatsappClient('c-stop');
  await clientWrites('whatsapp', phone, { text: 'STOP' });
  const confirmation = await eventually(async () => fake.sends.find((r) => r.body.to === digits(phone) && r.body.text === OPT_OUT_CONFIRMATION));
  expect(confirmation.body).toEqual({ channel: 'whatsapp', message_type: 'text', to: digits(phone), from: digits(FROM), text: OPT_OUT_CONFIRMATION });
  expect(await optOutsOf(phone)).toEqual([expect.objectContaining({ phone, sender: FROM, channel: 'whatsapp', status: 'opted_out', source: 'keyword' })]);

  expectProblem(await send({ client: 'c-stop', channel: 'whatsapp', text_message: 'Are you sure?' }), 409, 'Recipient has opted out of WhatsApp messages');
  const sms = await sent({ client: 'c-stop', text_message: 'Your order shipped' });
  expect(requestFor(sms).body).toMatchObject({ channel: 'sms', message_type: 'text', to: digits(phone), text: 'Your order shipped' });
});

test('RCS from a business number with its agent: channel rcs with failover to SMS; a capable handset gets it and reads it as RCS, an incapable one by the failover SMS; a tap reaches the conversation; STOP on RCS stops SMS', async () => {
  const number = '+15558880201';
  await withRcsNumber(stack, { number, carrier: 'vonage', rcsAgent: 'AcmeRcsAgent' }, async () => {
    const phone = newPhone();
    expect((await flows.api('POST', '/clients', { _id: 'c-rcs', name: 'Ada', phone })).status).toBe(201);
    const message = await sent({ client: 'c-rcs', channel: 'rcs', text_message: 'Table at 7?', suggestions: [{ text: 'Yes', postback_data: 'confirm' }] });
    expect(requestFor(message).body).toEqual({
      channel: 'rcs',
      message_type: 'text',
      to: digits(phone),
      from: 'AcmeRcsAgent',
      text: 'Table at 7?',
      suggestions: [{ type: 'reply', text: 'Yes', postback_data: 'confirm' }],
      failover: [{ channel: 'sms', message_type: 'text', to: digits(phone), from: digits(number), text: 'Table at 7?' }],
      ...ours(message),
    });
    await fake.postRcsOutcome(message.provider_ref);
    expect((await fake.postStatus(message.provider_ref, 'read')).status).toBe(200);
    expect(await getMessage(message._id)).toMatchObject({ status: 'read', channel: 'rcs', delivered_channel: 'rcs', from: number });

    const incapable = newPhone();
    fake.rcsIncapable.add(incapable);
    const fallback = await sent({ client_phone: incapable, channel: 'rcs', text_message: 'Table at 7?' });
    const { failover } = await fake.postRcsOutcome(fallback.provider_ref);
    expect(await eventually(async () => (await getMessage(fallback._id)).status === 'delivered' && getMessage(fallback._id))).toMatchObject({ delivered_channel: 'sms', provider_ref: fallback.provider_ref });
    expect(failover?.message_uuid).not.toBe(fallback.provider_ref);

    expect((await fake.postInboundRcs(inboundUrl, phone, 'AcmeRcsAgent', { tap: { id: 'confirm', title: 'Yes' } })).status).toBe(200);
    expect(await lastInbound('c-rcs')).toMatchObject({ channel: 'rcs', text_message: 'Yes', to: number, suggestions: [{ text: 'Yes', postback_data: 'confirm' }], conversation: message.conversation });

    expect((await fake.postInboundRcs(inboundUrl, phone, 'AcmeRcsAgent', { text: 'STOP' })).status).toBe(200);
    expectProblem(await send({ client: 'c-rcs', text_message: 'Are you sure?' }), 409, 'Recipient has opted out of text messages');
    expectProblem(await send({ client: 'c-rcs', channel: 'rcs', text_message: 'Are you sure?' }), 409, 'Recipient has opted out of text messages');
  });
});
