import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import { OUTSIDE_WHATSAPP_WINDOW } from '../../src/domain/channels';
import { type Carrier, type CarrierCallback, CarrierRejected, type CarrierSend, CarrierUnavailable, type FetchedMedia } from '../../src/carriers/types';
import { createVonageCarrier, type VonageSettings } from '../../src/carriers/vonage';
import { CallbackReceiver } from '../support/callback-receiver';
import { FakeVonage, VONAGE_MAGIC } from '../support/fake-vonage';
import { rejectionOf, withRef } from '../support/helpers';

/*
 * Vonage's WhatsApp and MMS through the official SDK against the local Messages API, which checks each
 * request as Vonage documents it; status and inbound webhooks signed with Vonage's scheme and posted
 * over HTTP; clients' files fetched from the fake's media server behind the application's JWT.
 */

const FROM = '+15557770000';
const TO = '+14155550123';
const INBOUND = '/providers/vonage/inbound';

let fake: FakeVonage;
let receiver: CallbackReceiver;
let carrier: Carrier;

const settings = (overrides: Partial<VonageSettings> = {}): VonageSettings => ({
  ...fake.settings(FROM),
  ...overrides,
});

function outgoing(fields: Partial<CarrierSend> = {}): CarrierSend {
  const id = fields.id ?? randomUUID();
  return { id, to: TO, text: 'Your visit is confirmed', statusCallbackUrl: `${receiver.base}/providers/vonage/status/${id}`, dispatchedAt: new Date(), channel: 'sms', media: [], ...fields };
}

const lastBody = () => fake.sends.at(-1)!.body;
const digits = (n: string) => n.replace(/^\+/, '');

async function read(media: FetchedMedia): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of media.body) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  fake = await new FakeVonage().start();
  receiver = await new CallbackReceiver().start();
  carrier = createVonageCarrier(settings());
});

afterAll(async () => {
  await fake?.stop();
  await receiver?.stop();
});

describe('WhatsApp and MMS requests, as the Messages API documents them', () => {
  test('WhatsApp text: channel whatsapp, message_type text, numbers without +, client_ref and webhook_url', async () => {
    const message = outgoing({ channel: 'whatsapp', text: 'We are open until 6' });
    const { providerRef } = await withRef(carrier.send(message));
    expect(lastBody()).toEqual({ channel: 'whatsapp', message_type: 'text', to: digits(TO), from: digits(FROM), text: 'We are open until 6', client_ref: message.id, webhook_url: message.statusCallbackUrl });
    expect(jwt.decode(/^Bearer (.+)$/.exec(fake.sends.at(-1)!.headers.authorization!)![1]!)).toMatchObject({ application_id: fake.applicationId });
    expect(fake.message(providerRef)).toMatchObject({ channel: 'whatsapp', message_type: 'text' });
  });

  test.each([
    ['https://cdn.example.com/a/photo.JPG', 'image'],
    ['https://cdn.example.com/clip.mp4', 'video'],
    ['https://cdn.example.com/invoice.pdf?v=2', 'file'],
  ])('WhatsApp with one file %s goes as %s, the text as its caption', async (url, kind) => {
    await carrier.send(outgoing({ channel: 'whatsapp', text: 'Here it is', media: [url] }));
    expect(lastBody()).toMatchObject({ channel: 'whatsapp', message_type: kind, [kind]: { url, caption: 'Here it is' } });
    expect(lastBody().text).toBeUndefined();
  });

  test('WhatsApp audio goes without caption; audio with text is refused before any request (the text would be lost)', async () => {
    await carrier.send(outgoing({ channel: 'whatsapp', text: '', media: ['https://cdn.example.com/note.ogg'] }));
    expect(lastBody()).toMatchObject({ message_type: 'audio', audio: { url: 'https://cdn.example.com/note.ogg' } });
    expect(lastBody().audio.caption).toBeUndefined();
    const before = fake.sends.length;
    expect(await rejectionOf(carrier.send(outgoing({ channel: 'whatsapp', text: 'listen', media: ['https://cdn.example.com/note.ogg'] })))).toMatchObject({ name: 'CarrierRejected', code: 'whatsapp-audio-caption' });
    expect(fake.sends.length).toBe(before);
  });

  test('a WhatsApp template: message_type template, its name, its values in order, the locale under a deterministic policy; no text', async () => {
    const message = outgoing({ channel: 'whatsapp', text: 'Hi Ana, your visit is on Tuesday', template: { ref: { name: 'visit_reminder', language: 'pt_BR' }, variables: [{ name: '1', value: 'Ana' }, { name: '2', value: 'Tuesday' }] } });
    await carrier.send(message);
    const template = { name: 'visit_reminder', parameters: ['Ana', 'Tuesday'] };
    const request = { channel: 'whatsapp', message_type: 'template', to: digits(TO), from: digits(FROM), template, whatsapp: { policy: 'deterministic', locale: 'pt_BR' } };
    expect(lastBody()).toEqual({ ...request, client_ref: message.id, webhook_url: message.statusCallbackUrl });
  });

  test('a template registered for Twilio (a ContentSid), or two files on WhatsApp, are refused before any request', async () => {
    const before = fake.sends.length;
    const twilio = outgoing({ channel: 'whatsapp', template: { ref: { contentSid: 'HX0123456789abcdef0123456789abcdef' }, variables: [] } });
    expect(await rejectionOf(carrier.send(twilio))).toMatchObject({ name: 'CarrierRejected', code: 'template-ref' });
    expect(await rejectionOf(carrier.send(outgoing({ channel: 'whatsapp', media: ['https://a.example/1.jpg', 'https://a.example/2.jpg'] })))).toMatchObject({ code: 'whatsapp-media-count' });
    expect(fake.sends.length).toBe(before);
  });

  test('MMS with one file: channel mms and the file type from the extension, the text as caption', async () => {
    await carrier.send(outgoing({ text: 'Our menu', media: ['https://cdn.example.com/menu.png'] }));
    expect(lastBody()).toMatchObject({ channel: 'mms', message_type: 'image', image: { url: 'https://cdn.example.com/menu.png', caption: 'Our menu' } });
    await carrier.send(outgoing({ text: '', media: ['https://cdn.example.com/card.vcf'] }));
    expect(lastBody()).toMatchObject({ channel: 'mms', message_type: 'vcard', vcard: { url: 'https://cdn.example.com/card.vcf' } });
  });

  test("MMS with several files: Vonage's content message, one attachment each, the text on the first", async () => {
    await carrier.send(outgoing({ text: 'Two pictures', media: ['https://cdn.example.com/1.jpg', 'https://cdn.example.com/2.mp4', 'https://cdn.example.com/3.pdf'] }));
    const content = [{ type: 'image', url: 'https://cdn.example.com/1.jpg', caption: 'Two pictures' }, { type: 'video', url: 'https://cdn.example.com/2.mp4' }, { type: 'file', url: 'https://cdn.example.com/3.pdf' }];
    expect(lastBody()).toMatchObject({ channel: 'mms', message_type: 'content', content });
    expect(lastBody().content[1].caption).toBeUndefined();
  });

  test('a media URL that is not absolute https is refused before any request', async () => {
    const before = fake.sends.length;
    expect(await rejectionOf(carrier.send(outgoing({ media: ['http://cdn.example.com/a.jpg'] })))).toMatchObject({ name: 'CarrierRejected', code: 'media-url' });
    expect(await rejectionOf(carrier.send(outgoing({ channel: 'whatsapp', media: ['/relative.jpg'] })))).toMatchObject({ code: 'media-url' });
    expect(fake.sends.length).toBe(before);
  });

  test('an automatic answer to a WhatsApp client goes on WhatsApp, without client_ref or webhook_url', async () => {
    await carrier.reply(TO, 'Reply STOP to unsubscribe.', 'whatsapp');
    expect(lastBody()).toEqual({ channel: 'whatsapp', message_type: 'text', to: digits(TO), from: digits(FROM), text: 'Reply STOP to unsubscribe.' });
  });

  test.each([
    ['an image on the sms channel', { channel: 'sms', message_type: 'image', image: { url: 'https://a.example/x.jpg' } }, 'message_type'],
    ['a WhatsApp image without https', { channel: 'whatsapp', message_type: 'image', image: { url: 'http://a.example/x.jpg' } }, 'image.url'],
    ['a WhatsApp audio with a caption', { channel: 'whatsapp', message_type: 'audio', audio: { url: 'https://a.example/x.mp3', caption: 'hi' } }, 'audio.caption'],
    ['a template without a policy', { channel: 'whatsapp', message_type: 'template', template: { name: 'visit', parameters: ['a'] }, whatsapp: { locale: 'en_US' } }, 'whatsapp.policy'],
    ['a template with a number as parameter', { channel: 'whatsapp', message_type: 'template', template: { name: 'visit', parameters: [3] }, whatsapp: { policy: 'deterministic', locale: 'en_US' } }, 'template.parameters'],
    ['an image with text beside it', { channel: 'mms', message_type: 'image', image: { url: 'https://a.example/x.jpg' }, text: 'hi' }, 'text'],
    ['an empty content list', { channel: 'mms', message_type: 'content', content: [] }, 'content'],
  ])('the fake refuses %s as Vonage does (422, invalid_parameters)', async (_name, fields, parameter) => {
    const token = jwt.sign({ application_id: fake.applicationId, jti: randomUUID() }, fake.privateKey, { algorithm: 'RS256' });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const response = await fetch(`${fake.url}/v1/messages`, { method: 'POST', headers, body: JSON.stringify({ to: digits(TO), from: digits(FROM), ...fields }) });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ type: 'https://developer.vonage.com/api-errors/messages#1020', invalid_parameters: [{ name: parameter }] });
  });
});

describe('WhatsApp receipts', () => {
  test("delivered, then read: a signed status webhook whose read reads as 'read' for our message", async () => {
    const message = outgoing({ channel: 'whatsapp' });
    const { providerRef } = await withRef(carrier.send(message));
    await fake.postStatus(providerRef, 'delivered');
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ status: 'delivered', messageId: message.id });
    await fake.postStatus(providerRef, 'read');
    const callback = receiver.last;
    expect(JSON.parse(callback.rawBody.toString())).toMatchObject({ status: 'read', channel: 'whatsapp' });
    await expect(carrier.verify(callback)).resolves.toBe(true);
    expect(carrier.parseReceipt(callback)).toMatchObject({ providerRef, status: 'read', messageId: message.id, sender: FROM });
    expect(carrier.numberOf!(callback, 'receipt')).toBe(FROM);
  });

  test('an MMS receipt names its channel and reads like an SMS one', async () => {
    const { providerRef } = await withRef(carrier.send(outgoing({ media: ['https://cdn.example.com/a.jpg'] })));
    await fake.postStatus(providerRef, 'submitted');
    expect(JSON.parse(receiver.last.rawBody.toString())).toMatchObject({ channel: 'mms' });
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ status: 'sent' });
  });

  test('outside the 24-hour window WhatsApp rejects a free-form message (1340, our window words); a template to the same client goes', async () => {
    const { providerRef } = await withRef(carrier.send(outgoing({ channel: 'whatsapp', to: VONAGE_MAGIC.outsideWindow })));
    await fake.postStatus(providerRef);
    const receipt = carrier.parseReceipt(receiver.last)!;
    expect(receipt).toMatchObject({ status: 'failed', errorCode: '1340' });
    expect(receipt.optOut).toBeUndefined();
    expect(carrier.describeCode!('1340')).toBe(OUTSIDE_WHATSAPP_WINDOW);
    const template = await withRef(carrier.send(outgoing({ channel: 'whatsapp', to: VONAGE_MAGIC.outsideWindow, template: { ref: { name: 'visit_reminder', language: 'en' }, variables: [] } })));
    await fake.postStatus(template.providerRef);
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ status: 'delivered' });
  });
});

describe('RCS: channel rcs from the agent, failover to SMS/MMS from the number', () => {
  const AGENT = 'AcmeRcsAgent';
  const rcsCarrier = () => createVonageCarrier(settings({ VONAGE_RCS_FROM: AGENT }));
  const suggestions = [{ text: 'Yes', postbackData: 'confirm' }];

  test('text with suggested replies: from the agent, suggestions as reply chips, failover: the same text as SMS from the number', async () => {
    const message = outgoing({ channel: 'rcs', text: 'Table for two at 7?', suggestions });
    await withRef(rcsCarrier().send(message));
    expect(lastBody()).toEqual({
      channel: 'rcs',
      message_type: 'text',
      to: digits(TO),
      from: AGENT,
      text: 'Table for two at 7?',
      suggestions: [{ type: 'reply', text: 'Yes', postback_data: 'confirm' }],
      failover: [{ channel: 'sms', message_type: 'text', to: digits(TO), from: digits(FROM), text: 'Table for two at 7?' }],
      client_ref: message.id,
      webhook_url: message.statusCallbackUrl,
    });
  });

  test("a file: RBM's standalone card as a custom message (sent untouched, camelCase), failover an MMS with the file", async () => {
    await rcsCarrier().send(outgoing({ channel: 'rcs', text: 'Our menu', media: ['https://cdn.example.com/menu.png'], suggestions }));
    expect(lastBody()).toMatchObject({
      channel: 'rcs',
      message_type: 'custom',
      custom: {
        contentMessage: {
          richCard: {
            standaloneCard: {
              cardOrientation: 'VERTICAL',
              cardContent: { description: 'Our menu', media: { height: 'MEDIUM', contentInfo: { fileUrl: 'https://cdn.example.com/menu.png' } }, suggestions: [{ reply: { text: 'Yes', postbackData: 'confirm' } }] },
            },
          },
        },
      },
      failover: [{ channel: 'mms', message_type: 'image', image: { url: 'https://cdn.example.com/menu.png', caption: 'Our menu' } }],
    });
  });

  test('a capable handset: delivered on RCS, then read; an incapable one: the RCS rejection is no outcome, the failover SMS (its own uuid) delivers it as SMS', async () => {
    const capable = await withRef(rcsCarrier().send(outgoing({ channel: 'rcs', text: 'Hi' })));
    await fake.postRcsOutcome(capable.providerRef);
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ providerRef: capable.providerRef, status: 'delivered', deliveredChannel: 'rcs' });
    expect(carrier.parseReceipt(receiver.last)?.fallback).toBeUndefined();
    await fake.postStatus(capable.providerRef, 'read');
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ status: 'read', deliveredChannel: 'rcs' });

    fake.rcsIncapable.add('+14155550199');
    const message = outgoing({ channel: 'rcs', to: '+14155550199', text: 'Hi' });
    const sent = await withRef(rcsCarrier().send(message));
    const before = receiver.received.length;
    const { failover } = await fake.postRcsOutcome(sent.providerRef);
    const [rejected, submitted, delivered] = receiver.received.slice(before);
    await expect(carrier.verify(rejected!)).resolves.toBe(true);
    expect(carrier.parseReceipt(rejected!)).toBeNull();
    expect(carrier.parseReceipt(submitted!)).toMatchObject({ status: 'sent', deliveredChannel: 'sms', fallback: true });
    expect(carrier.parseReceipt(delivered!)).toEqual(expect.objectContaining({ providerRef: failover!.message_uuid, messageId: message.id, status: 'delivered', deliveredChannel: 'sms', fallback: true, sender: FROM }));
  });

  test('without an agent RCS is refused before any request; the fake refuses a 26-character chip', async () => {
    const before = fake.sends.length;
    expect(await rejectionOf(carrier.send(outgoing({ channel: 'rcs' })))).toMatchObject({ name: 'CarrierRejected', code: 'rcs-sender' });
    expect(fake.sends.length).toBe(before);
    expect(await rejectionOf(rcsCarrier().send(outgoing({ channel: 'rcs', suggestions: [{ text: 'x'.repeat(26), postbackData: 'p' }] })))).toBeInstanceOf(CarrierRejected);
  });

  test('inbound RCS: typed text, and a tapped suggestion (reply { id, title }), to our agent, which names the account', async () => {
    const typed = await fake.postInboundRcs(`${receiver.base}${INBOUND}`, TO, AGENT, { text: 'See you at 7' });
    await expect(carrier.verify(receiver.last)).resolves.toBe(true);
    expect(carrier.parseInbound(receiver.last)).toEqual({ providerRef: typed.id, from: TO, to: AGENT, text: 'See you at 7', receivedAt: expect.any(Date), channel: 'rcs', media: [] });
    expect(carrier.numberOf!(receiver.last, 'inbound')).toBe(AGENT);
    await fake.postInboundRcs(`${receiver.base}${INBOUND}`, TO, AGENT, { tap: { id: 'confirm', title: 'Yes' } });
    expect(carrier.parseInbound(receiver.last)).toMatchObject({ channel: 'rcs', text: 'Yes', suggestion: { text: 'Yes', postbackData: 'confirm' } });
  });
});

describe('inbound WhatsApp and MMS', () => {
  test('a WhatsApp text: channel whatsapp, plain E.164 numbers, no media; our number for the account check', async () => {
    const posted = await fake.postInboundOn('whatsapp', `${receiver.base}${INBOUND}`, TO, FROM, { text: 'Is 3pm free?' });
    const callback = receiver.last;
    await expect(carrier.verify(callback)).resolves.toBe(true);
    expect(carrier.parseInbound(callback)).toEqual({ providerRef: posted.id, from: TO, to: FROM, text: 'Is 3pm free?', receivedAt: expect.any(Date), channel: 'whatsapp', media: [] });
    expect(carrier.numberOf!(callback, 'inbound')).toBe(FROM);
    expect(carrier.parseReceipt(callback)).toBeNull();
  });

  test.each(['image', 'video', 'audio', 'file'])('a WhatsApp %s: its URL as the media, the caption as text', async (kind) => {
    const posted = await fake.postInboundOn('whatsapp', `${receiver.base}${INBOUND}`, TO, FROM, { file: { kind, caption: `my ${kind}` } });
    expect(carrier.parseInbound(receiver.last)).toMatchObject({ channel: 'whatsapp', text: `my ${kind}`, media: [{ url: posted.mediaUrl, contentType: null, size: null }] });
  });

  test.each(['image', 'video', 'audio', 'vcard', 'file'])("an MMS %s: channel sms (MMS is SMS with media), the file, '' without a caption", async (kind) => {
    const posted = await fake.postInboundOn('mms', `${receiver.base}${INBOUND}`, TO, FROM, { file: { kind } });
    const inbound = carrier.parseInbound(receiver.last);
    expect(inbound).toEqual({ providerRef: posted.id, from: TO, to: FROM, text: '', receivedAt: expect.any(Date), channel: 'sms', media: [{ url: posted.mediaUrl, contentType: null, size: null }] });
  });

  test("a quick reply's and an interactive choice's words are the text; a location is no message we keep", () => {
    const sign = (body: object): CarrierCallback => {
      const raw = JSON.stringify({ channel: 'whatsapp', message_uuid: randomUUID(), to: digits(FROM), from: digits(TO), timestamp: new Date().toISOString(), ...body });
      return { url: `${receiver.base}${INBOUND}`, headers: { authorization: `Bearer ${fake.signature(raw)}` }, rawBody: Buffer.from(raw) };
    };
    expect(carrier.parseInbound(sign({ message_type: 'button', button: { payload: 'yes', text: 'Yes, confirm' } }))).toMatchObject({ text: 'Yes, confirm', media: [] });
    expect(carrier.parseInbound(sign({ message_type: 'reply', reply: { id: 'r1', title: 'Tuesday' } }))).toMatchObject({ text: 'Tuesday' });
    expect(carrier.parseInbound(sign({ message_type: 'location', location: { lat: 1, long: 2 } }))).toBeNull();
    expect(carrier.parseInbound(sign({ message_type: 'image', image: { url: 'not a url' } }))).toBeNull();
  });
});

describe("fetching a client's file (Secure inbound media: the application's JWT)", () => {
  test('streams the bytes with their type and size, asked with our application JWT', async () => {
    const bytes = Buffer.from('%PDF-1.4 a small document');
    const posted = await fake.postInboundOn('whatsapp', `${receiver.base}${INBOUND}`, TO, FROM, { file: { kind: 'file', bytes, contentType: 'application/pdf' } });
    const media = await carrier.fetchMedia!(posted.mediaUrl!);
    expect(media).toMatchObject({ contentType: 'application/pdf', size: bytes.length });
    expect((await read(media)).equals(bytes)).toBe(true);
    const request = fake.requests.at(-1)!;
    expect(request).toMatchObject({ method: 'GET', path: new URL(posted.mediaUrl!).pathname });
    expect(jwt.decode(/^Bearer (.+)$/.exec(request.headers.authorization!)![1]!)).toMatchObject({ application_id: fake.applicationId });
  });

  test("another application's file is not served to ours (401: credentials, retried); that application's carrier gets it", async () => {
    const other = fake.addApplication();
    const posted = await fake.postInboundOn('mms', `${receiver.base}${INBOUND}`, TO, FROM, { file: { kind: 'image' } }, other.applicationId);
    expect(await rejectionOf(carrier.fetchMedia!(posted.mediaUrl!))).toBeInstanceOf(CarrierUnavailable);
    const theirs = createVonageCarrier(settings({ VONAGE_APPLICATION_ID: other.applicationId, VONAGE_PRIVATE_KEY: other.privateKey }));
    expect((await theirs.fetchMedia!(posted.mediaUrl!)).contentType).toBe('image/jpeg');
  });

  test('with key and secret only no credentials are sent (standard media); the secured file is then refused', async () => {
    const basic = createVonageCarrier(settings({ VONAGE_APPLICATION_ID: undefined, VONAGE_PRIVATE_KEY: undefined, VONAGE_API_KEY: fake.apiKey, VONAGE_API_SECRET: fake.apiSecret }));
    const posted = await fake.postInboundOn('mms', `${receiver.base}${INBOUND}`, TO, FROM, { file: { kind: 'image' } });
    expect(await rejectionOf(basic.fetchMedia!(posted.mediaUrl!))).toBeInstanceOf(CarrierUnavailable);
    expect(fake.requests.at(-1)!.headers.authorization).toBeUndefined();
  });

  test("a file Vonage no longer has is final (404); a host that is not Vonage's is refused without a request", async () => {
    const posted = await fake.postInboundOn('whatsapp', `${receiver.base}${INBOUND}`, TO, FROM, { file: { kind: 'image' } });
    fake.media.remove(new URL(posted.mediaUrl!).pathname.split('/').pop()!);
    expect(await rejectionOf(carrier.fetchMedia!(posted.mediaUrl!))).toMatchObject({ name: 'CarrierRejected', code: 'media-not-found' });
    const before = fake.requests.length;
    for (const url of ['https://evil.example/v3/media/1', 'https://api.nexmo.com.evil.example/v3/media/1', 'http://api-us.nexmo.com/v3/media/1', 'https://api-us.nexmo.com:8443/v3/media/1', 'not a url']) {
      expect(await rejectionOf(carrier.fetchMedia!(url))).toMatchObject({ name: 'CarrierRejected', code: 'media-foreign-host' });
    }
    expect(fake.requests.length).toBe(before);
  });

  test('a media server that fails (503) or cannot be reached is unavailable', async () => {
    const failing: Server = createServer((_req, res) => res.writeHead(503, { 'retry-after': '4' }).end());
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
    const behind = createVonageCarrier(settings({ VONAGE_API_URL: base }));
    const error = await rejectionOf(behind.fetchMedia!(`${base}/v3/media/${randomUUID()}`));
    expect(error).toBeInstanceOf(CarrierUnavailable);
    expect(error).toMatchObject({ retryAfterMs: 4000 });
    await new Promise<void>((resolve) => failing.close(() => resolve()));
    expect(await rejectionOf(behind.fetchMedia!(`${base}/v3/media/${randomUUID()}`))).toBeInstanceOf(CarrierUnavailable);
  });
});

describe("WhatsApp and MMS errors, in our words (never Vonage's text, which quotes the number)", () => {
  const final: [string, RegExp][] = [['1340', /24-hour window/], ['131047', /24-hour window/], ['1022', /template/], ['132000', /template/], ['132015', /paused/], ['131026', /cannot receive WhatsApp/], ['1300', /cannot receive WhatsApp/], ['1380', /media file/]];
  test.each(final)('%s is final', async (code, words) => {
    fake.failNext({ status: 422, code, title: 'Refused' });
    const error = await rejectionOf(carrier.send(outgoing({ channel: 'whatsapp' })));
    expect(error).toBeInstanceOf(CarrierRejected);
    expect(error).toMatchObject({ code, optOut: false });
    expect(error.message).toMatch(words);
    expect(error.message).not.toContain(digits(TO));
    expect(carrier.describeCode!(code)).toBe(error.message);
  });

  test.each(['131056', '1241', '1331'])('%s (too many to one client, WhatsApp not answering) is retried', async (code) => {
    fake.failNext({ status: 422, code, title: 'Try later', retryAfter: '3' });
    const error = await rejectionOf(carrier.send(outgoing({ channel: 'whatsapp' })));
    expect(error).toBeInstanceOf(CarrierUnavailable);
    expect(error).toMatchObject({ retryAfterMs: 3000 });
    expect(carrier.describeCode!(code)).toBeDefined();
  });

  test('a receipt rejected with a Meta code keeps it, described in our words', async () => {
    const { providerRef } = await withRef(carrier.send(outgoing({ channel: 'whatsapp' })));
    await fake.postStatus(providerRef, 'rejected', { code: '131047' });
    expect(carrier.parseReceipt(receiver.last)).toMatchObject({ status: 'failed', errorCode: '131047' });
    expect(carrier.describeCode!('131047')).toBe(OUTSIDE_WHATSAPP_WINDOW);
    expect(carrier.describeCode!('constructor')).toBeUndefined();
  });
});
