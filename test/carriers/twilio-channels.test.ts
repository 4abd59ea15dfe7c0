import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Carrier, CarrierRejected, CarrierUnavailable, type CarrierCallback, type CarrierSend } from '../../src/carriers';
import { classifyTwilioAnswer, createTwilioCarrier } from '../../src/carriers/twilio';
import { OUTSIDE_WHATSAPP_WINDOW } from '../../src/domain/channels';
import { rejectionOf, withRef } from '../support/helpers';
import { SIMULATOR_TEMPLATES, startCallbackCatcher, startFakeTwilio, type CapturedCallback, type FakeTwilio } from '../support/fake-twilio';

/*
 * WhatsApp and MMS through the Twilio carrier against the Twilio-compatible fake: each request as Twilio
 * documents it, read receipts, inbound WhatsApp and MMS, media fetched with the account's credentials
 * (and never with them past Twilio's redirect), templates' approval, and the channels' error codes.
 */

let fake: FakeTwilio;
let catcher: Awaited<ReturnType<typeof startCallbackCatcher>>;
let carrier: Carrier;
beforeAll(async () => {
  fake = await startFakeTwilio({ subaccounts: [{ accountSid: `AC${'5'.repeat(32)}`, authToken: 'sub-token' }] });
  catcher = await startCallbackCatcher();
  carrier = createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, from: fake.from, apiUrl: fake.url, contentApiUrl: fake.url });
});
afterAll(async () => {
  await fake.stop();
  await catcher.stop();
});

const hex = () => randomBytes(16).toString('hex');
let counter = 0;
function outgoing(fields: Partial<CarrierSend> = {}): CarrierSend {
  const id = `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`;
  return { id, to: '+14155550100', text: `Hello ${counter}`, statusCallbackUrl: `${catcher.base}/providers/twilio/status/${id}`, dispatchedAt: new Date(), channel: 'sms', media: [], ...fields };
}
const callbackOf = (captured: CapturedCallback, messageId?: string): CarrierCallback => ({ url: captured.url, headers: captured.headers as Record<string, string>, rawBody: captured.rawBody, messageId });
const lastRequest = () => fake.api.requests.at(-1)!;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
async function bytesOf(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

test('WhatsApp: To and From prefixed whatsapp:, through a messaging service the prefixed To with MessagingServiceSid', async () => {
  const message = outgoing({ channel: 'whatsapp', text: 'Your table is ready' });
  const { providerRef } = await withRef(carrier.send(message));
  expect(lastRequest()).toMatchObject({ method: 'POST', status: 201 });
  expect(lastRequest().params).toEqual({ To: 'whatsapp:+14155550100', From: `whatsapp:${fake.from}`, Body: 'Your table is ready', StatusCallback: message.statusCallbackUrl });
  expect(fake.api.messages.find((kept) => kept.sid === providerRef)).toMatchObject({ to: 'whatsapp:+14155550100', from: `whatsapp:${fake.from}` });

  const viaService = createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, apiKey: fake.apiKey, messagingServiceSid: fake.messagingServiceSid, apiUrl: fake.url });
  await viaService.send({ ...message, id: 'via-service' });
  expect(lastRequest().params).toEqual({ To: 'whatsapp:+14155550100', MessagingServiceSid: fake.messagingServiceSid, Body: 'Your table is ready', StatusCallback: message.statusCallbackUrl });
});

test('MMS: each media URL as a repeated MediaUrl with the Body; media alone go without Body; the answer is an MM sid', async () => {
  const media = ['https://cdn.example.com/a.jpg', 'https://cdn.example.com/b.png?v=2'];
  const mms = await withRef(carrier.send(outgoing({ text: 'Two pictures', media })));
  expect(mms.providerRef).toMatch(/^MM[0-9a-f]{32}$/);
  expect(lastRequest().all.MediaUrl).toEqual(media);
  expect(lastRequest().params).toMatchObject({ To: '+14155550100', From: fake.from, Body: 'Two pictures' });

  await carrier.send(outgoing({ channel: 'whatsapp', text: '', media: [media[0]] }));
  const { StatusCallback: _callback, ...params } = lastRequest().params;
  expect(params).toEqual({ To: 'whatsapp:+14155550100', From: `whatsapp:${fake.from}`, MediaUrl: media[0] });
});

test('a template: ContentSid and ContentVariables (variable name → value), no Body and no MediaUrl; a name-and-language reference is refused before Twilio', async () => {
  const template = { ref: { contentSid: SIMULATOR_TEMPLATES.approved.sid }, variables: [{ name: '1', value: 'Ada' }, { name: '2', value: 'Monday' }] };
  const message = outgoing({ channel: 'whatsapp', text: 'Hello Ada, your appointment is on Monday.', media: ['https://cdn.example.com/x.jpg'], template });
  const { providerRef } = await withRef(carrier.send(message));
  expect(lastRequest().params).toEqual({
    To: 'whatsapp:+14155550100',
    From: `whatsapp:${fake.from}`,
    ContentSid: SIMULATOR_TEMPLATES.approved.sid,
    ContentVariables: JSON.stringify({ 1: 'Ada', 2: 'Monday' }),
    StatusCallback: message.statusCallbackUrl,
  });
  expect(fake.api.messages.find((kept) => kept.sid === providerRef)?.body).toBe('Hello Ada, your appointment is on Monday.');

  const requests = fake.api.requests.length;
  const byName = await rejectionOf(carrier.send(outgoing({ channel: 'whatsapp', template: { ref: { name: 'appointment_reminder', language: 'en' }, variables: [] } })));
  expect(byName).toBeInstanceOf(CarrierRejected);
  expect((byName as CarrierRejected).code).toBe('template-ref');
  expect(fake.api.requests).toHaveLength(requests);

  // Twilio's own refusals of templates: a variable missing (21656), a content it does not know (21655).
  const missing = await rejectionOf(carrier.send(outgoing({ channel: 'whatsapp', template: { ...template, variables: [{ name: '1', value: 'Ada' }] } })));
  expect({ code: (missing as CarrierRejected).code, message: missing.message }).toEqual({ code: '21656', message: "The template's variables (ContentVariables) are not valid: each must have a value" });
  const unknown = await rejectionOf(carrier.send(outgoing({ channel: 'whatsapp', template: { ...template, ref: { contentSid: `HX${hex()}` } } })));
  expect((unknown as CarrierRejected).code).toBe('21655');
});

test('reply goes on the channel it is given (WhatsApp prefixed), SMS by default; no status callback', async () => {
  await carrier.reply('+14155550100', 'Reply STOP to unsubscribe.', 'whatsapp');
  expect(lastRequest().params).toEqual({ To: 'whatsapp:+14155550100', From: `whatsapp:${fake.from}`, Body: 'Reply STOP to unsubscribe.' });
  await carrier.reply('+14155550100', 'Reply STOP to unsubscribe.');
  expect(lastRequest().params).toEqual({ To: '+14155550100', From: fake.from, Body: 'Reply STOP to unsubscribe.' });
});

test('findSent on WhatsApp lists by the prefixed To and From and never takes the SMS copy of the same text', async () => {
  const to = '+14155550181';
  const message = outgoing({ to, channel: 'whatsapp', text: 'See you at 5', dispatchedAt: new Date(Date.now() - 1000) });
  await carrier.send({ ...message, channel: 'sms' });
  expect(await carrier.findSent(message)).toBeNull();
  expect(lastRequest()).toMatchObject({ method: 'GET', params: { To: `whatsapp:${to}`, From: `whatsapp:${fake.from}` } });
  const sent = await withRef(carrier.send(message));
  expect(await carrier.findSent(message)).toEqual({ providerRef: sent.providerRef, segments: 1 });
});

test("findSent for a template: Twilio's rendering differs from ours, the copy is the one carrying every value of our variables", async () => {
  const to = '+14155550182';
  const template = (first: string, second: string) => ({ ref: { contentSid: SIMULATOR_TEMPLATES.approved.sid }, variables: [{ name: '1', value: first }, { name: '2', value: second }] });
  // Our record's rendering is not Twilio's words: the body does not match.
  const message = outgoing({ to, channel: 'whatsapp', text: 'Reminder: Grace, Tuesday 9am', template: template('Grace', 'Tuesday 9am'), dispatchedAt: new Date(Date.now() - 1000) });
  await carrier.send({ ...message, template: template('Linus', 'Tuesday 9am') });
  expect(await carrier.findSent(message)).toBeNull();
  const sent = await withRef(carrier.send(message));
  expect((await carrier.findSent(message))?.providerRef).toBe(sent.providerRef);
});

test("receipts: WhatsApp's read is 'read'; From's whatsapp: prefix is dropped from the sender; a failure outside the window reads in our words", async () => {
  const message = outgoing({ channel: 'whatsapp' });
  const { providerRef } = await withRef(carrier.send(message));
  await fake.api.postStatus(providerRef, 'delivered');
  await fake.api.postStatus(providerRef, 'read');
  await fake.api.postStatus(providerRef, 'failed', { errorCode: 63016 });
  const [delivered, read, failed] = catcher.received.slice(-3).map((captured) => callbackOf(captured, message.id));
  expect(new URLSearchParams(read.rawBody.toString()).get('From')).toBe(`whatsapp:${fake.from}`);
  for (const callback of [delivered, read, failed]) expect(await carrier.verify(callback)).toBe(true);
  expect(carrier.parseReceipt(delivered)).toEqual({ providerRef, messageId: message.id, status: 'delivered', sender: fake.from });
  expect(carrier.parseReceipt(read)).toEqual({ providerRef, messageId: message.id, status: 'read', sender: fake.from });
  expect(carrier.parseReceipt(failed)).toEqual({ providerRef, messageId: message.id, status: 'failed', errorCode: '63016', sender: fake.from });
  expect(carrier.numberOf!(read, 'receipt')).toBe(fake.from);
  expect(carrier.describeCode!('63016')).toBe(OUTSIDE_WHATSAPP_WINDOW);
});

test("the fake keeps WhatsApp's window as Twilio does: postReceipts posts the 63016 failure until the client writes, then sent, delivered, read", async () => {
  const client = '+14155550185';
  const statuses = async (message: CarrierSend) => {
    const { providerRef } = await withRef(carrier.send(message));
    const before = catcher.received.length;
    await fake.api.postReceipts(providerRef);
    return catcher.received.slice(before).map((captured) => carrier.parseReceipt(callbackOf(captured))).map((receipt) => [receipt?.status, receipt?.errorCode].filter(Boolean).join(' '));
  };
  expect(await statuses(outgoing({ to: client, channel: 'whatsapp' }))).toEqual(['failed 63016']);
  await fake.api.postInbound(`${catcher.base}/providers/twilio/inbound`, { from: client, to: fake.from, body: 'Hello', channel: 'whatsapp' });
  expect(await statuses(outgoing({ to: client, channel: 'whatsapp' }))).toEqual(['sent', 'delivered', 'read']);
  expect(await statuses(outgoing({ to: client }))).toEqual(['sent', 'delivered']);
});

test('inbound WhatsApp and MMS: the channel, plain E.164 numbers, the media (URL, content type); a picture alone parses with an empty text', async () => {
  const inboundUrl = `${catcher.base}/providers/twilio/inbound`;
  await fake.api.postInbound(inboundUrl, { from: '+14155550183', to: fake.from, body: 'Hi there', channel: 'whatsapp' });
  const whatsapp = callbackOf(catcher.received.at(-1)!);
  expect(await carrier.verify(whatsapp)).toBe(true);
  expect(carrier.parseInbound(whatsapp)).toEqual({ providerRef: expect.stringMatching(/^SM/), from: '+14155550183', to: fake.from, text: 'Hi there', receivedAt: expect.any(Date), channel: 'whatsapp', media: [] });
  expect(carrier.numberOf!(whatsapp, 'inbound')).toBe(fake.from);
  expect(carrier.parseReceipt(whatsapp)).toBeNull();

  const files = [{ contentType: 'image/png', data: randomBytes(300) }, { contentType: 'application/pdf', data: randomBytes(40) }];
  await fake.api.postInbound(inboundUrl, { from: '+14155550183', to: fake.from, body: '', media: files });
  const mms = carrier.parseInbound(callbackOf(catcher.received.at(-1)!));
  const mediaUrl = (type: string) => ({ url: expect.stringMatching(new RegExp(`^${fake.url}/2010-04-01/Accounts/${fake.accountSid}/Messages/MM[0-9a-f]{32}/Media/ME[0-9a-f]{32}$`)), contentType: type, size: null });
  expect(mms).toMatchObject({ providerRef: expect.stringMatching(/^MM/), channel: 'sms', text: '', media: [mediaUrl('image/png'), mediaUrl('application/pdf')] });

  await fake.api.postInbound(inboundUrl, { from: '+14155550183', to: fake.from, body: 'Look', channel: 'whatsapp', media: [files[0]] });
  expect(carrier.parseInbound(callbackOf(catcher.received.at(-1)!))).toMatchObject({ channel: 'whatsapp', from: '+14155550183', text: 'Look', media: [mediaUrl('image/png')] });

  // As posted by hand: no Body at all with a picture; another channel's prefix; mixed channels.
  const form = (fields: Record<string, string>): CarrierCallback => ({ url: inboundUrl, headers: {}, rawBody: Buffer.from(new URLSearchParams({ MessageSid: `MM${hex()}`, ...fields }).toString()) });
  const picture = { NumMedia: '1', MediaUrl0: `${fake.url}/x`, MediaContentType0: 'image/jpeg' };
  expect(carrier.parseInbound(form({ From: 'whatsapp:+14155550183', To: `whatsapp:${fake.from}`, ...picture }))).toMatchObject({ text: '', channel: 'whatsapp' });
  expect(carrier.parseInbound(form({ From: '+14155550183', To: fake.from, NumMedia: '0' }))).toBeNull();
  expect(carrier.parseInbound(form({ From: 'messenger:12345', To: `messenger:${fake.from}`, Body: 'Hi' }))).toBeNull();
  expect(carrier.parseInbound(form({ From: 'whatsapp:+14155550183', To: fake.from, Body: 'Hi' }))).toBeNull();
  expect(carrier.parseInbound(form({ From: '+14155550183', To: fake.from, Body: 'Hi', NumMedia: '2', MediaUrl0: `${fake.url}/x` }))).toBeNull();
});

test("fetchMedia: asked with the account's Basic credentials, Twilio's redirect followed without them, the bytes streamed with type and size", async () => {
  const data = randomBytes(70_000);
  await fake.api.postInbound(`${catcher.base}/providers/twilio/inbound`, { from: '+14155550184', to: fake.from, body: '', media: [{ contentType: 'image/jpeg', data }] });
  const [file] = carrier.parseInbound(callbackOf(catcher.received.at(-1)!))!.media;
  const fetched = await carrier.fetchMedia!(file.url);
  expect({ contentType: fetched.contentType, size: fetched.size }).toEqual({ contentType: 'image/jpeg', size: data.length });
  expect((await bytesOf(fetched.body)).equals(data)).toBe(true);
  const [asked, link] = fake.api.requests.slice(-2);
  expect({ path: fake.url + asked.path, status: asked.status, authorization: asked.headers.authorization }).toEqual({ path: file.url, status: 307, authorization: basic(fake.accountSid, fake.authToken) });
  expect({ path: link.path, status: link.status, authorization: link.headers.authorization }).toEqual({ path: expect.stringMatching(/^\/simulator\/media\//), status: 200, authorization: undefined });

  // Twilio no longer has it: final, in our words.
  fake.api.media.forget(/ME[0-9a-f]{32}$/.exec(file.url)![0]);
  const gone = await rejectionOf(carrier.fetchMedia!(file.url));
  expect(gone).toEqual(new CarrierRejected('20404', 'Twilio no longer has this media file'));
});

test("fetchMedia refuses a URL off the account's REST base or of another account before asking anyone; a subaccount's is fetched", async () => {
  const path = (account: string) => `/2010-04-01/Accounts/${account}/Messages/MM${hex()}/Media/ME${hex()}`;
  const before = fake.api.requests.length;
  for (const url of [`https://evil.example${path(fake.accountSid)}`, `${fake.url}/2010-04-01/Accounts/${fake.accountSid}/Messages.json`, `${fake.url}${path(fake.accountSid)}?x=1`, 'not a url', `http://api.twilio.com${path(fake.accountSid)}`]) {
    expect(await rejectionOf(carrier.fetchMedia!(url))).toEqual(new CarrierRejected('media-url', "The media URL is not one of this Twilio account's media files"));
  }
  expect(fake.api.requests).toHaveLength(before);
  // Another account: Twilio does not show it to us.
  expect(await rejectionOf(carrier.fetchMedia!(`${fake.url}${path(`AC${hex()}`)}`))).toEqual(new CarrierRejected('media-url', "The media URL is not one of this Twilio account's media files"));
  // Our subaccount's file, with our credentials (Twilio confirms the subaccount is ours).
  const sub = `AC${'5'.repeat(32)}`;
  const media = fake.api.media.add(sub, `MM${hex()}`, 'image/gif', Buffer.from('GIF89a'));
  const fetched = await carrier.fetchMedia!(`${fake.url}/2010-04-01/Accounts/${sub}/Messages/${media.messageSid}/Media/${media.sid}`);
  expect((await bytesOf(fetched.body)).toString()).toBe('GIF89a');
});

/** A server standing in for Twilio's REST base or its CDN, recording each request's path and headers. */
async function stand(handle: (req: IncomingMessage, res: ServerResponse, url: string) => void) {
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    handle(req, res, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

test('fetchMedia across hosts: no credentials to the CDN, a streamed body without length has no size; loops, other schemes, failures', async () => {
  const cdn = await stand((_req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4' });
    res.write('part one,');
    res.end('part two');
  });
  const rest = await stand((req, res, self) => {
    if (req.url!.endsWith('0001')) return void res.writeHead(302, { location: `${cdn.url}/signed?token=abc` }).end();
    if (req.url!.endsWith('0002')) return void res.writeHead(307, { location: `${self}/loop` }).end();
    if (req.url === '/loop') return void res.writeHead(307, { location: `${self}/loop` }).end();
    if (req.url!.endsWith('0003')) return void res.writeHead(307, { location: 'file:///etc/passwd' }).end();
    if (req.url!.endsWith('0004')) return void res.writeHead(503, { 'retry-after': '4' }).end();
    res.writeHead(401).end();
  });
  try {
    const viaRest = createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, from: fake.from, apiUrl: rest.url });
    const url = (end: string) => `${rest.url}/2010-04-01/Accounts/${fake.accountSid}/Messages/MM${hex()}/Media/ME${'0'.repeat(28)}${end}`;
    const fetched = await viaRest.fetchMedia!(url('0001'));
    expect({ contentType: fetched.contentType, size: fetched.size, body: (await bytesOf(fetched.body)).toString() }).toEqual({ contentType: 'video/mp4', size: null, body: 'part one,part two' });
    expect(rest.seen[0].headers.authorization).toBe(basic(fake.accountSid, fake.authToken));
    expect(cdn.seen).toEqual([{ path: '/signed?token=abc', headers: expect.not.objectContaining({ authorization: expect.anything() }) }]);

    expect(await rejectionOf(viaRest.fetchMedia!(url('0002')))).toEqual(new CarrierUnavailable('Twilio redirected the media request too many times'));
    expect(rest.seen.filter((seen) => seen.path === '/loop').every((seen) => seen.headers.authorization === undefined)).toBe(true);
    expect(await rejectionOf(viaRest.fetchMedia!(url('0003')))).toEqual(new CarrierRejected('media-redirect', 'Twilio redirected the media request to a URL that is not https'));
    const unavailable = await rejectionOf(viaRest.fetchMedia!(url('0004')));
    expect({ type: unavailable.constructor, retryAfterMs: (unavailable as CarrierUnavailable).retryAfterMs }).toEqual({ type: CarrierUnavailable, retryAfterMs: 4000 });
    expect(await rejectionOf(viaRest.fetchMedia!(url('0005')))).toEqual(new CarrierRejected('20003', 'Twilio refused the credentials this deployment sends with'));
    const closed = await stand(() => undefined);
    await closed.stop();
    const unreachable = createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, from: fake.from, apiUrl: closed.url });
    expect(await rejectionOf(unreachable.fetchMedia!(`${closed.url}/2010-04-01/Accounts/${fake.accountSid}/Messages/MM${hex()}/Media/ME${hex()}`))).toEqual(new CarrierUnavailable('Twilio unreachable: ECONNREFUSED'));
  } finally {
    await rest.stop();
    await cdn.stop();
  }
});

test("templateApproval through the Content API's approval fetch: Twilio's statuses mapped; unknown sids and name references are unknown", async () => {
  expect(await carrier.templateApproval!({ contentSid: SIMULATOR_TEMPLATES.approved.sid })).toBe('approved');
  expect(lastRequest()).toMatchObject({ method: 'GET', path: `/v1/Content/${SIMULATOR_TEMPLATES.approved.sid}/ApprovalRequests`, status: 200 });
  expect(lastRequest().headers.authorization).toBe(basic(fake.accountSid, fake.authToken));
  expect(await carrier.templateApproval!({ contentSid: SIMULATOR_TEMPLATES.pending.sid })).toBe('pending');
  expect(await carrier.templateApproval!({ contentSid: `HX${hex()}` })).toBe('unknown');
  const requests = fake.api.requests.length;
  expect(await carrier.templateApproval!({ name: 'appointment_reminder', language: 'en' })).toBe('unknown');
  expect(await carrier.templateApproval!({ contentSid: 'HX-not-a-sid' })).toBe('unknown');
  expect(fake.api.requests).toHaveLength(requests);

  const created = await fetch(`${fake.url}/v1/Content`, {
    method: 'POST',
    headers: { authorization: basic(fake.accountSid, fake.authToken), 'content-type': 'application/json' },
    body: JSON.stringify({ friendly_name: 'receipt', language: 'en', variables: { 1: 'Ada' }, types: { 'twilio/text': { body: 'Thanks {{1}}' } } }),
  });
  const { sid } = (await created.json()) as { sid: string };
  expect(await carrier.templateApproval!({ contentSid: sid })).toBe('unknown');
  const cases = [['rejected', 'rejected'], ['disabled', 'rejected'], ['paused', 'pending'], ['received', 'pending'], ['approved', 'approved']] as const;
  for (const [twilio, ours] of cases) {
    fake.api.contents.setApproval(sid, twilio);
    expect({ twilio, ours: await carrier.templateApproval!({ contentSid: sid }) }).toEqual({ twilio, ours });
  }
});

test("WhatsApp's and MMS's error codes: refusals final in our words, WhatsApp's throttling retried", async () => {
  const final = ['63016', '63003', '63024', '63049', '63032', '63027', '63028', '21656', '131047', '132000', '132015', '131026', '30019', '11751', '12300'];
  for (const code of final) {
    const error = classifyTwilioAnswer(400, Number(code));
    expect({ code, type: error.constructor.name, reported: (error as CarrierRejected).code }).toEqual({ code, type: 'CarrierRejected', reported: code });
    expect({ code, words: error.message }).toEqual({ code, words: expect.not.stringMatching(/HTTP 400/) });
    expect(carrier.describeCode!(code)).toBe(error.message);
  }
  expect(classifyTwilioAnswer(400, 63016).message).toBe(OUTSIDE_WHATSAPP_WINDOW);
  expect(classifyTwilioAnswer(400, 131047).message).toBe(OUTSIDE_WHATSAPP_WINDOW);
  for (const code of ['63018', '131056', '130429']) {
    expect({ code, type: classifyTwilioAnswer(400, Number(code)).constructor.name }).toEqual({ code, type: 'CarrierUnavailable' });
    expect(carrier.describeCode!(code)).toEqual(expect.any(String));
  }
  // As Twilio answers a send: WhatsApp's rate limit is worth another attempt.
  fake.api.failNext(1, 400, 63018);
  expect(await rejectionOf(carrier.send(outgoing({ channel: 'whatsapp' })))).toBeInstanceOf(CarrierUnavailable);
});

describe('RCS through the Messaging Service whose sender pool holds the RCS sender (Twilio falls back to SMS by itself)', () => {
  const rcsCarrier = () =>
    createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, messagingServiceSid: fake.messagingServiceSid, rcsFallbackFrom: fake.from, apiUrl: fake.url, contentApiUrl: fake.url });
  const agent = () => `rcs:sim_${fake.messagingServiceSid}`;

  test('text: the plain To, MessagingServiceSid and FallbackFrom (the number); from a number alone RCS is refused before Twilio', async () => {
    const message = outgoing({ channel: 'rcs', text: 'Table for two at 7?' });
    await rcsCarrier().send(message);
    expect(lastRequest().params).toEqual({ To: '+14155550100', MessagingServiceSid: fake.messagingServiceSid, FallbackFrom: fake.from, Body: 'Table for two at 7?', StatusCallback: message.statusCallbackUrl });
    const before = fake.api.requests.length;
    expect(await rejectionOf(carrier.send(outgoing({ channel: 'rcs' })))).toMatchObject({ name: 'CarrierRejected', code: 'rcs-sender' });
    expect(fake.api.requests.length).toBe(before);
  });

  test('suggested replies: a twilio/quick-reply content (with twilio/text for the fallback) made through the Content API, sent by its ContentSid', async () => {
    const message = outgoing({ channel: 'rcs', text: 'Still coming?', suggestions: [{ text: 'Yes', postbackData: 'confirm' }, { text: 'Cancel', postbackData: 'cancel' }] });
    await rcsCarrier().send(message);
    const [create, send] = fake.api.requests.slice(-2);
    expect(create).toMatchObject({ method: 'POST', path: '/v1/Content', status: 201 });
    const content = [...fake.api.messages].reverse().find((m) => m.direction === 'outbound-api')!;
    expect(send!.params).toEqual({ To: '+14155550100', MessagingServiceSid: fake.messagingServiceSid, FallbackFrom: fake.from, ContentSid: expect.stringMatching(/^HX/), StatusCallback: message.statusCallbackUrl });
    expect(fake.api.contents.typesOf(send!.params.ContentSid!)).toEqual({
      'twilio/quick-reply': { body: 'Still coming?', actions: [{ type: 'QUICK_REPLY', title: 'Yes', id: 'confirm' }, { type: 'QUICK_REPLY', title: 'Cancel', id: 'cancel' }] },
      'twilio/text': { body: 'Still coming?' },
    });
    expect(content.body).toBe('Still coming?');
  });

  test('a capable handset: from the RCS sender (rcs:…), sent, delivered and read, each naming RCS; one whose number ends in 9 gets the SMS from FallbackFrom (its receipts name the number, no RCS), no read', async () => {
    const statuses = async (message: CarrierSend) => {
      const { providerRef } = await withRef(rcsCarrier().send(message));
      const before = catcher.received.length;
      await fake.api.postReceipts(providerRef);
      return catcher.received.slice(before).map((captured) => carrier.parseReceipt(callbackOf(captured, message.id)));
    };
    const rcs = await statuses(outgoing({ channel: 'rcs', to: '+14155550170' }));
    expect(rcs.map((r) => [r?.status, r?.deliveredChannel])).toEqual([['sent', 'rcs'], ['delivered', 'rcs'], ['read', 'rcs']]);
    expect(new URLSearchParams(catcher.received.at(-1)!.rawBody.toString()).get('From')).toBe(agent());
    expect(fake.api.sentTo('+14155550170').at(-1)).toMatchObject({ to: 'rcs:+14155550170', from: agent() });

    const sms = await statuses(outgoing({ channel: 'rcs', to: '+14155550179' }));
    // From the number: no RCS in the receipt, which the message reads as Twilio's SMS fallback.
    expect(sms.map((r) => [r?.status, r?.deliveredChannel, r?.sender])).toEqual([['sent', undefined, fake.from], ['delivered', undefined, fake.from]]);
  });

  test('inbound RCS: from rcs:+1… to our RCS sender, channel rcs; a tapped suggestion brings ButtonText and ButtonPayload; the sender names the account', async () => {
    const inboundUrl = `${catcher.base}/providers/twilio/inbound`;
    await fake.api.postInbound(inboundUrl, { from: '+14155550171', to: `sim_${fake.messagingServiceSid}`, body: 'See you at 7', channel: 'rcs' });
    const typed = callbackOf(catcher.received.at(-1)!);
    expect(await carrier.verify(typed)).toBe(true);
    expect(carrier.parseInbound(typed)).toEqual({ providerRef: expect.stringMatching(/^SM/), from: '+14155550171', to: agent(), text: 'See you at 7', receivedAt: expect.any(Date), channel: 'rcs', media: [] });
    expect(carrier.numberOf!(typed, 'inbound')).toBe(agent());
    await fake.api.postInbound(inboundUrl, { from: '+14155550171', to: `sim_${fake.messagingServiceSid}`, body: 'Yes', channel: 'rcs', button: { text: 'Yes', payload: 'confirm' } });
    expect(carrier.parseInbound(callbackOf(catcher.received.at(-1)!))).toMatchObject({ channel: 'rcs', text: 'Yes', suggestion: { text: 'Yes', postbackData: 'confirm' } });
  });

  test("findSent after a crash finds an RCS message under Twilio's rcs:+1… record, and one Twilio fell back to SMS under the plain number", async () => {
    for (const to of ['+14155550172', '+14155550179']) {
      const message = outgoing({ channel: 'rcs', to, text: `Lookup ${to}` });
      const { providerRef } = await withRef(rcsCarrier().send(message));
      expect(await rcsCarrier().findSent(message)).toMatchObject({ providerRef });
    }
  });

  test('the fake refuses FallbackFrom without a Messaging Service (21666), as Twilio does', async () => {
    const res = await fetch(`${fake.url}/2010-04-01/Accounts/${fake.accountSid}/Messages.json`, {
      method: 'POST',
      headers: { authorization: basic(fake.accountSid, fake.authToken), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ To: '+14155550100', From: fake.from, FallbackFrom: fake.from, Body: 'x' }).toString(),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 21666 });
  });
});
