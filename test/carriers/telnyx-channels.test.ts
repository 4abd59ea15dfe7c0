import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTelnyxCarrier, type TelnyxSettings } from '../../src/carriers/telnyx';
import { type Carrier, type CarrierCallback, CarrierRejected, type CarrierSend, CarrierUnavailable, type FetchedMedia } from '../../src/carriers/types';
import { OUTSIDE_WHATSAPP_WINDOW } from '../../src/domain/channels';
import { CallbackReceiver } from '../support/callback-receiver';
import { FakeTelnyx, TELNYX_MAGIC } from '../support/fake-telnyx';
import { rejectionOf, withRef } from '../support/helpers';

/*
 * Telnyx's MMS (`POST /v2/messages` with `media_urls`) and WhatsApp (`POST /v2/messages/whatsapp`) through
 * the official SDK against the local Telnyx API, which checks each request as Telnyx documents it;
 * webhooks (receipts with WhatsApp's `message.read`, clients' MMS and WhatsApp messages) signed with
 * Telnyx's Ed25519 scheme and posted over HTTP; clients' files fetched from the fake's media links.
 */

const FROM = '+15557770000';
const TO = '+14155550123';
const INBOUND = '/providers/telnyx/inbound';

let fake: FakeTelnyx;
let receiver: CallbackReceiver;
let carrier: Carrier;

const settings = (overrides: Partial<TelnyxSettings> = {}): TelnyxSettings => ({ TELNYX_API_KEY: fake.apiKey, TELNYX_FROM: FROM, TELNYX_PUBLIC_KEY: fake.publicKey, TELNYX_API_URL: fake.url, ...overrides });

function outgoing(fields: Partial<CarrierSend> = {}): CarrierSend {
  const id = fields.id ?? randomUUID();
  return { id, to: TO, text: 'Your visit is confirmed', statusCallbackUrl: `${receiver.base}/providers/telnyx/status/${id}`, dispatchedAt: new Date(), channel: 'sms', media: [], ...fields };
}

const last = () => fake.sends.at(-1)!;

async function read(media: FetchedMedia): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of media.body) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/** A `message.received` body signed by the fake, for payloads its helpers do not build. */
function signedInbound(payload: Record<string, unknown>): CarrierCallback {
  const raw = fake.eventBody('message.received', { record_type: 'message', direction: 'inbound', id: randomUUID(), type: 'WHATSAPP', from: { phone_number: TO }, to: FROM, ...payload }, receiver.base);
  return { url: `${receiver.base}${INBOUND}`, headers: fake.signatureHeaders(raw), rawBody: Buffer.from(raw) };
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

describe('MMS: POST /v2/messages with media_urls', () => {
  test('the files as media_urls beside the text, this message’s webhook_url, profile webhooks off', async () => {
    const message = outgoing({ text: 'Our menu', media: ['https://cdn.example.com/menu.png', 'https://cdn.example.com/wine.jpg'] });
    const { providerRef } = await withRef(carrier.send(message));
    expect(last()).toMatchObject({ path: '/v2/messages', headers: { authorization: `Bearer ${fake.apiKey}` } });
    expect(last().body).toEqual({ to: TO, from: FROM, text: 'Our menu', media_urls: message.media, webhook_url: message.statusCallbackUrl, use_profile_webhooks: false });
    expect(fake.message(providerRef)).toMatchObject({ type: 'MMS', media: message.media });
  });

  test('an MMS without text carries no text', async () => {
    await carrier.send(outgoing({ text: '', media: ['https://cdn.example.com/a.gif'] }));
    expect(last().body).toEqual({ to: TO, from: FROM, media_urls: ['https://cdn.example.com/a.gif'], webhook_url: expect.any(String), use_profile_webhooks: false });
  });

  test('more than ten files, or a URL that is not absolute https, is refused before any request', async () => {
    const before = fake.sends.length;
    const eleven = Array.from({ length: 11 }, (_, i) => `https://cdn.example.com/${i}.jpg`);
    expect(await rejectionOf(carrier.send(outgoing({ media: eleven })))).toMatchObject({ name: 'CarrierRejected', code: 'mms-media-count' });
    expect(await rejectionOf(carrier.send(outgoing({ media: ['http://cdn.example.com/a.jpg'] })))).toMatchObject({ name: 'CarrierRejected', code: 'media-url' });
    expect(fake.sends.length).toBe(before);
  });
});

describe('WhatsApp: POST /v2/messages/whatsapp through the SDK', () => {
  test('a text: from our number, whatsapp_message { type: text, text: { body } }, this message’s webhook_url', async () => {
    const message = outgoing({ channel: 'whatsapp', text: 'We are open until 6' });
    const { providerRef } = await withRef(carrier.send(message));
    expect(last()).toMatchObject({ path: '/v2/messages/whatsapp', headers: { authorization: `Bearer ${fake.apiKey}` } });
    expect(last().body).toEqual({ from: FROM, to: TO, type: 'WHATSAPP', whatsapp_message: { type: 'text', text: { body: 'We are open until 6' } }, webhook_url: message.statusCallbackUrl });
    expect(fake.message(providerRef)).toMatchObject({ type: 'WHATSAPP', text: 'We are open until 6' });
  });

  test('one file: image, video or document by extension, with the caption (and a document its file name)', async () => {
    await carrier.send(outgoing({ channel: 'whatsapp', text: 'Here', media: ['https://cdn.example.com/p.jpeg'] }));
    expect(last().body.whatsapp_message).toEqual({ type: 'image', image: { link: 'https://cdn.example.com/p.jpeg', caption: 'Here' } });
    await carrier.send(outgoing({ channel: 'whatsapp', text: '', media: ['https://cdn.example.com/v.mp4'] }));
    expect(last().body.whatsapp_message).toEqual({ type: 'video', video: { link: 'https://cdn.example.com/v.mp4' } });
    await carrier.send(outgoing({ channel: 'whatsapp', text: 'Your invoice', media: ['https://cdn.example.com/docs/invoice%2042.pdf'] }));
    expect(last().body.whatsapp_message).toEqual({ type: 'document', document: { link: 'https://cdn.example.com/docs/invoice%2042.pdf', caption: 'Your invoice', filename: 'invoice 42.pdf' } });
  });

  test('audio goes without caption; audio with text is refused before any request', async () => {
    await carrier.send(outgoing({ channel: 'whatsapp', text: '', media: ['https://cdn.example.com/n.opus'] }));
    expect(last().body.whatsapp_message).toEqual({ type: 'audio', audio: { link: 'https://cdn.example.com/n.opus' } });
    const before = fake.sends.length;
    expect(await rejectionOf(carrier.send(outgoing({ channel: 'whatsapp', text: 'listen', media: ['https://cdn.example.com/n.opus'] })))).toMatchObject({ code: 'whatsapp-audio-caption' });
    expect(fake.sends.length).toBe(before);
  });

  test('a template by name and language, its values as body text parameters in order; none: no components', async () => {
    await carrier.send(outgoing({ channel: 'whatsapp', template: { ref: { name: 'visit_reminder', language: 'en_US' }, variables: [{ name: 'first_name', value: 'Ana' }, { name: 'day', value: 'Tuesday' }] } }));
    expect(last().body.whatsapp_message).toEqual({
      type: 'template',
      template: { name: 'visit_reminder', language: { policy: 'deterministic', code: 'en_US' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }, { type: 'text', text: 'Tuesday' }] }] },
    });
    await carrier.send(outgoing({ channel: 'whatsapp', template: { ref: { name: 'hello', language: 'es' }, variables: [] } }));
    expect(last().body.whatsapp_message).toEqual({ type: 'template', template: { name: 'hello', language: { policy: 'deterministic', code: 'es' } } });
  });

  test('a messaging profile cannot send WhatsApp, nor a Twilio template or two files: refused before any request', async () => {
    const before = fake.sends.length;
    const byProfile = createTelnyxCarrier(settings({ TELNYX_FROM: undefined, TELNYX_MESSAGING_PROFILE_ID: fake.profileId }));
    expect(await rejectionOf(byProfile.send(outgoing({ channel: 'whatsapp' })))).toMatchObject({ name: 'CarrierRejected', code: 'whatsapp-sender' });
    expect(await rejectionOf(carrier.send(outgoing({ channel: 'whatsapp', template: { ref: { contentSid: 'HX00000000000000000000000000000000' }, variables: [] } })))).toMatchObject({ code: 'template-ref' });
    expect(await rejectionOf(carrier.send(outgoing({ channel: 'whatsapp', media: ['https://a.example/1.jpg', 'https://a.example/2.jpg'] })))).toMatchObject({ code: 'whatsapp-media-count' });
    expect(fake.sends.length).toBe(before);
  });

  test('an automatic answer to a WhatsApp client goes on WhatsApp, asking for no receipts', async () => {
    await carrier.reply(TO, 'Reply STOP to unsubscribe.', 'whatsapp');
    expect(last().body).toEqual({ from: FROM, to: TO, type: 'WHATSAPP', whatsapp_message: { type: 'text', text: { body: 'Reply STOP to unsubscribe.' } } });
  });
});

describe('the fake refuses what Telnyx refuses', () => {
  const whatsapp = (message: unknown, extra: object = {}) => ({ path: 'messages/whatsapp', body: { from: FROM, to: TO, whatsapp_message: message, ...extra } });
  const cases: [string, { path: string; body: object }, string][] = [
    ['WhatsApp without from', { path: 'messages/whatsapp', body: { to: TO, whatsapp_message: { type: 'text', text: { body: 'x' } } } }, '10004'],
    ['a WhatsApp image over http', whatsapp({ type: 'image', image: { link: 'http://a.example/x.jpg' } }), '10003'],
    ['a WhatsApp audio with a caption', whatsapp({ type: 'audio', audio: { link: 'https://a.example/x.mp3', caption: 'hi' } }), '10015'],
    ['a template without language', whatsapp({ type: 'template', template: { name: 'visit' } }), '10015'],
    ['a template with an empty value', whatsapp({ type: 'template', template: { name: 'visit', language: { code: 'en' }, components: [{ type: 'body', parameters: [{ type: 'text', text: '' }] }] } }), '10015'],
    ['a text with an image beside it', whatsapp({ type: 'text', text: { body: 'x' }, image: { link: 'https://a.example/x.jpg' } }), '10015'],
    ['eleven media_urls', { path: 'messages', body: { to: TO, from: FROM, media_urls: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}.jpg`) } }, '10015'],
    ['a media URL over http', { path: 'messages', body: { to: TO, from: FROM, text: 'x', media_urls: ['http://a.example/x.jpg'] } }, '10003'],
    ['an MMS without media_urls', { path: 'messages', body: { to: TO, from: FROM, text: 'x', type: 'MMS' } }, '10004'],
  ];
  test.each(cases)('%s', async (_name, request, code) => {
    const response = await fetch(`${fake.url}/${request.path}`, { method: 'POST', headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(request.body) });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ errors: [{ code }] });
  });
});

describe('receipts', () => {
  test("WhatsApp: sent, delivered, then message.read, which reads as 'read' for our message", async () => {
    const message = outgoing({ channel: 'whatsapp' });
    const { providerRef } = await withRef(carrier.send(message));
    await fake.postSent(providerRef);
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ status: 'sent', messageId: message.id });
    await fake.postFinalized(providerRef);
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ status: 'delivered' });
    await fake.postRead(providerRef);
    const callback = receiver.last;
    expect(JSON.parse(callback.rawBody.toString()).data).toMatchObject({ event_type: 'message.read', payload: { type: 'WHATSAPP' } });
    await expect(carrier.verify(callback)).resolves.toBe(true);
    expect(carrier.parseReceipt(callback)).toMatchObject({ providerRef, status: 'read', messageId: message.id, sender: FROM });
    expect(carrier.parseInbound(callback)).toBeNull();
  });

  test('Telnyx reports read for WhatsApp only; an MMS receipt reads as an SMS one', async () => {
    const { providerRef } = await withRef(carrier.send(outgoing({ media: ['https://cdn.example.com/a.jpg'] })));
    await expect(fake.postRead(providerRef)).rejects.toThrow(/WhatsApp/);
    await fake.postFinalized(providerRef);
    expect(JSON.parse(receiver.last.rawBody.toString()).data.payload).toMatchObject({ type: 'MMS', media: [{ url: 'https://cdn.example.com/a.jpg' }] });
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ status: 'delivered', price: { amount: '0.0040', unit: 'USD' } });
  });

  test("outside the 24-hour window a free-form WhatsApp fails with Meta's 131047 (our window words); a template goes", async () => {
    const { providerRef } = await withRef(carrier.send(outgoing({ channel: 'whatsapp', to: TELNYX_MAGIC.outsideWindow })));
    await fake.postFinalized(providerRef);
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ status: 'undelivered', errorCode: '131047' });
    expect(carrier.describeCode!('131047')).toBe(OUTSIDE_WHATSAPP_WINDOW);
    const template = await withRef(carrier.send(outgoing({ channel: 'whatsapp', to: TELNYX_MAGIC.outsideWindow, template: { ref: { name: 'hello', language: 'en' }, variables: [] } })));
    await fake.postFinalized(template.providerRef);
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ status: 'delivered' });
  });
});

describe('RCS: POST /v2/messages/rcs through the SDK, with the SMS/MMS fallback from the number', () => {
  const PROFILE = () => fake.profileId;
  const rcsCarrier = () => createTelnyxCarrier(settings({ TELNYX_MESSAGING_PROFILE_ID: PROFILE(), TELNYX_RCS_AGENT_ID: 'fake_rcs_agent' }));
  const suggestions = [{ text: 'Yes', postbackData: 'confirm' }, { text: 'Another time', postbackData: 'Another time' }];

  test('text with suggested replies: agent_id, messaging_profile_id, content_message { text, suggestions: [{ reply }] }, sms_fallback from the number', async () => {
    const message = outgoing({ channel: 'rcs', text: 'Table for two at 7?', suggestions });
    const { providerRef } = await withRef(rcsCarrier().send(message));
    expect(last()).toMatchObject({ path: '/v2/messages/rcs', headers: { authorization: `Bearer ${fake.apiKey}` } });
    expect(last().body).toEqual({
      agent_id: 'fake_rcs_agent',
      to: TO,
      messaging_profile_id: PROFILE(),
      type: 'RCS',
      agent_message: { content_message: { text: 'Table for two at 7?', suggestions: [{ reply: { text: 'Yes', postback_data: 'confirm' } }, { reply: { text: 'Another time', postback_data: 'Another time' } }] } },
      sms_fallback: { from: FROM, text: 'Table for two at 7?' },
      webhook_url: message.statusCallbackUrl,
    });
    expect(fake.message(providerRef)).toMatchObject({ type: 'RCS' });
  });

  test('a file goes as a standalone rich card, falling back to MMS with the same file', async () => {
    await rcsCarrier().send(outgoing({ channel: 'rcs', text: 'Our menu', media: ['https://cdn.example.com/menu.png'], suggestions: suggestions.slice(0, 1) }));
    expect(last().body).toMatchObject({
      agent_message: {
        content_message: {
          rich_card: {
            standalone_card: {
              card_orientation: 'VERTICAL',
              card_content: { description: 'Our menu', media: { height: 'MEDIUM', content_info: { file_url: 'https://cdn.example.com/menu.png' } }, suggestions: [{ reply: { text: 'Yes', postback_data: 'confirm' } }] },
            },
          },
        },
      },
      mms_fallback: { from: FROM, text: 'Our menu', media_urls: ['https://cdn.example.com/menu.png'] },
    });
  });

  test('a capable handset: the receipts say RCS, then read; an incapable one: Telnyx sends the SMS, its receipt says SMS (no RCS named)', async () => {
    const capable = await withRef(rcsCarrier().send(outgoing({ channel: 'rcs', text: 'Hi' })));
    await fake.postFinalized(capable.providerRef);
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ providerRef: capable.providerRef, status: 'delivered', deliveredChannel: 'rcs' });
    await fake.postRead(capable.providerRef);
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ status: 'read', deliveredChannel: 'rcs' });

    fake.rcsIncapable.add('+14155550199');
    const fallback = await withRef(rcsCarrier().send(outgoing({ channel: 'rcs', to: '+14155550199', text: 'Hi' })));
    await fake.postFinalized(fallback.providerRef);
    const receipt = carrier.parseReceipt(receiver.last);
    expect(receipt).toMatchObject({ providerRef: fallback.providerRef, status: 'delivered', sender: FROM });
    expect(JSON.parse(receiver.last.rawBody.toString()).data.payload.type).toBe('SMS');
    expect(receipt?.deliveredChannel).toBeUndefined();
  });

  test('without an agent, or without a messaging profile, RCS is refused before any request; the fake refuses a 26-character chip', async () => {
    const before = fake.sends.length;
    expect(await rejectionOf(carrier.send(outgoing({ channel: 'rcs' })))).toMatchObject({ name: 'CarrierRejected', code: 'rcs-sender' });
    expect(await rejectionOf(createTelnyxCarrier(settings({ TELNYX_RCS_AGENT_ID: 'fake_rcs_agent' })).send(outgoing({ channel: 'rcs' })))).toMatchObject({ name: 'CarrierRejected', code: 'rcs-sender' });
    expect(fake.sends.length).toBe(before);
    expect(await rejectionOf(rcsCarrier().send(outgoing({ channel: 'rcs', suggestions: [{ text: 'x'.repeat(26), postbackData: 'p' }] })))).toBeInstanceOf(CarrierRejected);
  });

  test('a client types on RCS, or taps a suggestion: channel rcs, to our agent, the tap with its postback data; the agent names the account', async () => {
    const typed = await fake.postInboundRcs(`${receiver.base}${INBOUND}`, TO, 'fake_rcs_agent', { text: 'See you at 7' });
    await expect(carrier.verify(receiver.last)).resolves.toBe(true);
    expect(carrier.parseInbound(receiver.last)).toEqual({ providerRef: typed.id, from: TO, to: 'fake_rcs_agent', text: 'See you at 7', receivedAt: expect.any(Date), channel: 'rcs', media: [] });
    expect(carrier.numberOf!(receiver.last, 'inbound')).toBe('fake_rcs_agent');
    await fake.postInboundRcs(`${receiver.base}${INBOUND}`, TO, 'fake_rcs_agent', { tap: { text: 'Yes', postback_data: 'confirm' } });
    expect(carrier.parseInbound(receiver.last)).toMatchObject({ channel: 'rcs', text: 'Yes', suggestion: { text: 'Yes', postbackData: 'confirm' } });
  });
});

describe('inbound MMS and WhatsApp (message.received)', () => {
  test("an MMS: channel sms, the text, each file's URL, content type and size", async () => {
    const posted = await fake.postInboundOn('MMS', `${receiver.base}${INBOUND}`, TO, FROM, { text: 'The damage', files: [{ contentType: 'image/png', bytes: Buffer.alloc(1234, 1) }, { contentType: 'video/mp4', bytes: Buffer.alloc(99, 2) }] });
    const callback = receiver.last;
    await expect(carrier.verify(callback)).resolves.toBe(true);
    expect(carrier.parseInbound(callback)).toEqual({
      providerRef: posted.id,
      from: TO,
      to: FROM,
      text: 'The damage',
      receivedAt: expect.any(Date),
      channel: 'sms',
      media: [{ url: posted.mediaUrls[0], contentType: 'image/png', size: 1234 }, { url: posted.mediaUrls[1], contentType: 'video/mp4', size: 99 }],
    });
    expect(carrier.numberOf!(callback, 'inbound')).toBe(FROM);
  });

  test("an MMS without text: ''", async () => {
    await fake.postInboundOn('MMS', `${receiver.base}${INBOUND}`, TO, FROM, { text: '', files: [{}] });
    expect(carrier.parseInbound(receiver.last)).toMatchObject({ text: '', channel: 'sms', media: [{ contentType: 'image/jpeg' }] });
  });

  test('a WhatsApp text (to: one E.164 string): channel whatsapp, no media; our number for the account check', async () => {
    const posted = await fake.postInboundOn('WHATSAPP', `${receiver.base}${INBOUND}`, TO, FROM, { text: 'Is 3pm free?' });
    const callback = receiver.last;
    expect(JSON.parse(callback.rawBody.toString()).data.payload.to).toBe(FROM);
    await expect(carrier.verify(callback)).resolves.toBe(true);
    expect(carrier.parseInbound(callback)).toEqual({ providerRef: posted.id, from: TO, to: FROM, text: 'Is 3pm free?', receivedAt: expect.any(Date), channel: 'whatsapp', media: [] });
    expect(carrier.numberOf!(callback, 'inbound')).toBe(FROM);
  });

  test('a WhatsApp picture: its file and caption', async () => {
    const posted = await fake.postInboundOn('WHATSAPP', `${receiver.base}${INBOUND}`, TO, FROM, { files: [{ kind: 'image', caption: 'Scratch on the door', contentType: 'image/jpeg', bytes: Buffer.alloc(50) }] });
    expect(carrier.parseInbound(receiver.last)).toMatchObject({ channel: 'whatsapp', text: 'Scratch on the door', media: [{ url: posted.mediaUrls[0], contentType: 'image/jpeg', size: 50 }] });
  });

  test("a WhatsApp file named only in Meta's body; quick replies and choices as text; reactions and locations are none", () => {
    const body = { type: 'document', document: { link: 'https://media.telnyx.com/abc/report.pdf', mime_type: 'application/pdf', caption: 'Report' } };
    expect(carrier.parseInbound(signedInbound({ media: [], body }))).toMatchObject({ text: 'Report', media: [{ url: 'https://media.telnyx.com/abc/report.pdf', contentType: 'application/pdf', size: null }] });
    expect(carrier.parseInbound(signedInbound({ body: { type: 'button', button: { text: 'Yes, confirm', payload: 'y' } } }))).toMatchObject({ text: 'Yes, confirm', media: [] });
    expect(carrier.parseInbound(signedInbound({ body: { type: 'interactive', interactive: { type: 'button_reply', button_reply: { id: '1', title: 'Tuesday' } } } }))).toMatchObject({ text: 'Tuesday' });
    expect(carrier.parseInbound(signedInbound({ body: { type: 'reaction', reaction: { emoji: '👍', message_id: 'x' } } }))).toBeNull();
    expect(carrier.parseInbound(signedInbound({ body: { type: 'location', location: { latitude: 1, longitude: 2 } } }))).toBeNull();
  });
});

describe("fetching a client's file (Telnyx's short-lived media links)", () => {
  test('streams the bytes with type and size; the API key is never sent with it', async () => {
    const bytes = Buffer.from('GIF89a a tiny picture');
    const posted = await fake.postInboundOn('MMS', `${receiver.base}${INBOUND}`, TO, FROM, { text: 'x', files: [{ contentType: 'image/gif', bytes }] });
    const media = await carrier.fetchMedia!(posted.mediaUrls[0]!);
    expect(media).toMatchObject({ contentType: 'image/gif', size: bytes.length });
    expect((await read(media)).equals(bytes)).toBe(true);
    const request = fake.requests.at(-1)!;
    expect(request).toMatchObject({ method: 'GET', path: new URL(posted.mediaUrls[0]!).pathname });
    expect(request.headers.authorization).toBeUndefined();
  });

  test("an expired file is final (404); a host that is not Telnyx's is refused without a request", async () => {
    const posted = await fake.postInboundOn('WHATSAPP', `${receiver.base}${INBOUND}`, TO, FROM, { files: [{ kind: 'image' }] });
    fake.media.remove(new URL(posted.mediaUrls[0]!).pathname.split('/').pop()!);
    expect(await rejectionOf(carrier.fetchMedia!(posted.mediaUrls[0]!))).toMatchObject({ name: 'CarrierRejected', code: 'media-not-found' });
    const before = fake.requests.length;
    for (const url of ['https://evil.example/media/1', 'https://media.telnyx.com.evil.example/x.jpg', 'http://media.telnyx.com/x.jpg', 'https://eviltelnyx.com/x.jpg', 'not a url']) {
      expect(await rejectionOf(carrier.fetchMedia!(url))).toMatchObject({ name: 'CarrierRejected', code: 'media-foreign-host' });
    }
    expect(fake.requests.length).toBe(before);
  });

  test('a media server that fails (503) or cannot be reached is unavailable', async () => {
    const failing: Server = createServer((_req, res) => res.writeHead(503).end());
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
    const behind = createTelnyxCarrier(settings({ TELNYX_API_URL: `${base}/v2` }));
    expect(await rejectionOf(behind.fetchMedia!(`${base}/media/${randomUUID()}`))).toBeInstanceOf(CarrierUnavailable);
    await new Promise<void>((resolve) => failing.close(() => resolve()));
    expect(await rejectionOf(behind.fetchMedia!(`${base}/media/${randomUUID()}`))).toBeInstanceOf(CarrierUnavailable);
  });
});

describe("WhatsApp and MMS errors, in our words (never Telnyx's text)", () => {
  const final: [string, RegExp][] = [
    ['131047', /24-hour window/],
    ['131026', /cannot receive WhatsApp/],
    ['132000', /template/],
    ['132015', /paused/],
    ['40008', /template could not be used/],
    ['10003', /media URL/],
    ['131052', /media file/],
  ];
  test.each(final)('%s is final', async (code, words) => {
    fake.failNext({ status: 400, code, title: 'Refused' });
    const error = await rejectionOf(carrier.send(outgoing({ channel: 'whatsapp' })));
    expect(error).toBeInstanceOf(CarrierRejected);
    expect(error).toMatchObject({ code, optOut: false });
    expect(error.message).toMatch(words);
    expect(error.message).not.toMatch(/\+1|4155550123|Refused/);
    expect(carrier.describeCode!(code)).toBe(error.message);
  });

  test("131056 (too many messages to one client) is retried, after Telnyx's Retry-After", async () => {
    fake.failNext({ status: 400, code: '131056', title: 'Pair rate limit', retryAfter: '5' });
    const error = await rejectionOf(carrier.send(outgoing({ channel: 'whatsapp' })));
    expect(error).toBeInstanceOf(CarrierUnavailable);
    expect(error).toMatchObject({ retryAfterMs: 5000 });
  });

  test('an MMS refused by Telnyx is classified as an SMS is (429 retried)', async () => {
    fake.failNext({ status: 429, code: '10011', title: 'Too many requests' });
    expect(await rejectionOf(carrier.send(outgoing({ media: ['https://cdn.example.com/a.jpg'] })))).toBeInstanceOf(CarrierUnavailable);
  });
});
