import { randomBytes } from 'node:crypto';
import { type Carrier, type CarrierCallback, CarrierRejected, type CarrierSend, createCarrier } from '../../src/carriers';
import { createTwilioCarrier } from '../../src/carriers/twilio';
import { loadConfig } from '../../src/config/index';
import { type RunningSimulator, SIMULATOR_TEMPLATES, simulatorSettings, startSimulator } from '../../src/stack/simulator';
import { mediaTypeOf } from '../../src/stack/simulator/media-types';
import { eventually, rejectionOf } from '../support/helpers';
import { startCallbackCatcher, type CapturedCallback } from '../support/fake-twilio';

/*
 * The simulator npm start runs, carrying WhatsApp, MMS and RCS as Twilio does: the 24-hour window per (our
 * number, client) and its 63016, templates approved or not, read receipts, a person's files fetched
 * back through the Twilio carrier, and RCS with its SMS fallback and suggestion taps.
 */

let catcher: Awaited<ReturnType<typeof startCallbackCatcher>>;
let simulator: RunningSimulator;
const authToken = randomBytes(16).toString('hex');
const errors: unknown[] = [];
beforeAll(async () => {
  catcher = await startCallbackCatcher();
  simulator = await startSimulator({ authToken, publicBaseUrl: catcher.base, receiptDelayMs: 10, readDelayMs: 30, approvalDelayMs: 200, onCallbackError: (error) => errors.push(error) });
});
afterAll(async () => {
  await simulator.stop();
  await catcher.stop();
  expect(errors).toEqual([]);
});

const carrier = (from?: string): Carrier =>
  createCarrier(loadConfig({ MESSAGE_PROVIDER: 'simulator', PUBLIC_BASE_URL: catcher.base, ...simulatorSettings(simulator, authToken), ...(from && { TWILIO_FROM: from }) }))!;
const callbackOf = (captured: CapturedCallback, messageId?: string): CarrierCallback => ({ url: captured.url, headers: captured.headers as Record<string, string>, rawBody: captured.rawBody, messageId });
const authorization = () => `Basic ${Buffer.from(`${simulator.accountSid}:${authToken}`).toString('base64')}`;
const door = (path: string, body: unknown, headers: Record<string, string> = { authorization: authorization() }) =>
  fetch(`${simulator.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let counter = 0;
function outgoing(fields: Partial<CarrierSend>): CarrierSend {
  const id = `m-${++counter}`;
  return { id, to: '+14155550190', text: 'Hello', statusCallbackUrl: `${catcher.base}/providers/simulator/status/${id}`, dispatchedAt: new Date(), channel: 'whatsapp', media: [], ...fields };
}

/** Sends `message` and waits for its receipts, `count` of them, then a moment for any stray one: what each said. */
async function receiptsOf(sender: Carrier, message: CarrierSend, count: number) {
  await sender.send(message);
  const received = () => catcher.received.filter((captured) => captured.url === message.statusCallbackUrl);
  await eventually(async () => received().length >= count);
  await pause(80);
  return received().map((captured) => {
    const receipt = sender.parseReceipt(callbackOf(captured, message.id))!;
    return receipt.errorCode ? `${receipt.status} ${receipt.errorCode}` : receipt.status;
  });
}

test("the 24-hour window per (our number, client): free-form WhatsApp fails with 63016 until the client writes on WhatsApp; then sent, delivered, read", async () => {
  const simulated = carrier();
  const client = '+14155550191';
  expect(await receiptsOf(simulated, outgoing({ to: client }), 1)).toEqual(['failed 63016']);

  // A text by SMS does not open WhatsApp's window.
  expect((await door('/simulator/sms', { from: client, text: 'Hi by SMS' })).status).toBe(200);
  expect(await receiptsOf(simulated, outgoing({ to: client }), 1)).toEqual(['failed 63016']);

  const answered = await door('/simulator/sms', { from: client, text: 'Hi on WhatsApp', channel: 'whatsapp' });
  expect(await answered.json()).toMatchObject({ to: '+15005550006', channel: 'whatsapp', answer: 200 });
  const inbound = callbackOf(catcher.received.at(-1)!);
  expect(await simulated.verify(inbound)).toBe(true);
  expect(simulated.parseInbound(inbound)).toMatchObject({ channel: 'whatsapp', from: client, to: '+15005550006', text: 'Hi on WhatsApp', media: [] });
  expect(await receiptsOf(simulated, outgoing({ to: client }), 3)).toEqual(['sent', 'delivered', 'read']);

  // The window is the pair's: from another of the simulator's numbers it is still closed.
  expect(await receiptsOf(carrier('+15005550001'), outgoing({ to: client }), 1)).toEqual(['failed 63016']);
  // Backdated past 24 hours, it closes again.
  const backdated = await door('/simulator/whatsapp-window', { from: client, last_inbound_at: new Date(Date.now() - 25 * 3600_000).toISOString() });
  expect(await backdated.json()).toMatchObject({ from: client, to: '+15005550006', open: false });
  expect(await receiptsOf(simulated, outgoing({ to: client }), 1)).toEqual(['failed 63016']);
});

test('read receipts come for WhatsApp only; an SMS ends delivered', async () => {
  expect(await receiptsOf(carrier(), outgoing({ to: '+14155550192', channel: 'sms' }), 2)).toEqual(['sent', 'delivered']);
});

test('templates: an approved one goes outside the window (then read), a pending one fails with 63027, a missing variable is refused at the send (21656)', async () => {
  const simulated = carrier();
  const client = '+14155550193';
  const approved = { ref: { contentSid: SIMULATOR_TEMPLATES.approved.sid }, variables: [{ name: '1', value: 'Ada' }, { name: '2', value: 'Friday' }] };
  expect(await receiptsOf(simulated, outgoing({ to: client, template: approved }), 3)).toEqual(['sent', 'delivered', 'read']);
  expect(simulator.api.sentTo(client).at(-1)?.body).toBe('Hello Ada, your appointment is on Friday.');

  const pending = { ref: { contentSid: SIMULATOR_TEMPLATES.pending.sid }, variables: [{ name: '1', value: '30% off' }] };
  expect(await receiptsOf(simulated, outgoing({ to: client, template: pending }), 1)).toEqual(['failed 63027']);

  const missing = await rejectionOf(simulated.send(outgoing({ to: client, template: { ...approved, variables: [{ name: '2', value: 'Friday' }] } })));
  expect(missing).toBeInstanceOf(CarrierRejected);
  expect((missing as CarrierRejected).code).toBe('21656');
});

test("the Content API on the simulator's port: the carrier reads approvals; a content created and submitted is pending, then approved", async () => {
  const simulated = carrier();
  expect(await simulated.templateApproval!({ contentSid: SIMULATOR_TEMPLATES.approved.sid })).toBe('approved');
  expect(await simulated.templateApproval!({ contentSid: SIMULATOR_TEMPLATES.pending.sid })).toBe('pending');

  const api = (path: string, body?: unknown) =>
    fetch(`${simulator.url}${path}`, { method: body ? 'POST' : 'GET', headers: { authorization: authorization(), 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
  expect((await fetch(`${simulator.url}/v1/Content/${SIMULATOR_TEMPLATES.approved.sid}/ApprovalRequests`)).status).toBe(401);
  const created = await api('/v1/Content', { friendly_name: 'order_shipped', language: 'en', variables: { 1: 'A-1' }, types: { 'twilio/text': { body: 'Order {{1}} has shipped.' } } });
  expect(created.status).toBe(201);
  const { sid } = (await created.json()) as { sid: string };
  expect(sid).toMatch(/^HX[0-9a-f]{32}$/);
  expect(await simulated.templateApproval!({ contentSid: sid })).toBe('unknown');
  const submitted = await api(`/v1/Content/${sid}/ApprovalRequests/whatsapp`, { name: 'order_shipped', category: 'UTILITY' });
  expect({ status: submitted.status, body: await submitted.json() }).toMatchObject({ status: 201, body: { name: 'order_shipped', category: 'UTILITY', status: 'received' } });
  expect(await simulated.templateApproval!({ contentSid: sid })).toBe('pending');
  await eventually(async () => (await simulated.templateApproval!({ contentSid: sid })) === 'approved');
  expect((await (await api(`/v1/Content/${sid}/ApprovalRequests`)).json()) as object).toMatchObject({ sid, whatsapp: { status: 'approved', name: 'order_shipped' } });
});

test("a person's files (MMS, WhatsApp) are posted as Twilio's media URLs and fetched back through the Twilio carrier's fetchMedia", async () => {
  const simulated = carrier();
  const picture = randomBytes(2048);
  const card = Buffer.from('BEGIN:VCARD\nFN:Ada\nEND:VCARD\n');
  const answered = await door('/simulator/sms', {
    from: '+14155550194',
    text: '',
    media: [
      { content_type: 'image/jpeg', data: picture.toString('base64') },
      { content_type: 'text/vcard', data: card.toString('base64') },
    ],
  });
  const answer = (await answered.json()) as { sid: string; media: string[] };
  expect(answer.sid).toMatch(/^MM[0-9a-f]{32}$/);
  const inbound = simulated.parseInbound(callbackOf(catcher.received.at(-1)!))!;
  expect(inbound).toMatchObject({ channel: 'sms', text: '', media: [{ url: answer.media[0], contentType: 'image/jpeg' }, { url: answer.media[1], contentType: 'text/vcard' }] });
  for (const [n, bytes] of [picture, card].entries()) {
    const fetched = await simulated.fetchMedia!(inbound.media[n].url);
    const chunks: Buffer[] = [];
    for await (const chunk of fetched.body) chunks.push(Buffer.from(chunk as Buffer));
    expect({ contentType: fetched.contentType, size: fetched.size, same: Buffer.concat(chunks).equals(bytes) }).toEqual({ contentType: inbound.media[n].contentType, size: bytes.length, same: true });
  }
  // Twilio's media URL wants the account's credentials; its redirect does not, and expires.
  expect((await fetch(inbound.media[0].url, { redirect: 'manual' })).status).toBe(401);
  const redirected = await fetch(inbound.media[0].url, { redirect: 'manual', headers: { authorization: authorization() } });
  expect(redirected.status).toBe(307);
  expect((await fetch(redirected.headers.get('location')!)).status).toBe(200);

  await door('/simulator/sms', { from: '+14155550194', text: 'My ticket', channel: 'whatsapp', media: [{ content_type: 'application/pdf', data: card.toString('base64') }] });
  const whatsapp = simulated.parseInbound(callbackOf(catcher.received.at(-1)!))!;
  expect(whatsapp).toMatchObject({ channel: 'whatsapp', text: 'My ticket', media: [{ contentType: 'application/pdf' }] });
  expect((await simulated.fetchMedia!(whatsapp.media[0].url)).size).toBe(card.length);

  // What the door refuses: two files on WhatsApp, nothing at all, a file without its type.
  const file = { content_type: 'image/png', data: picture.toString('base64') };
  expect(await (await door('/simulator/sms', { from: '+14155550194', channel: 'whatsapp', media: [file, file] })).json()).toMatchObject({ code: 21623 });
  expect((await door('/simulator/sms', { from: '+14155550194', text: '' })).status).toBe(400);
  expect(await (await door('/simulator/sms', { from: '+14155550194', media: [{ data: file.data }] })).json()).toMatchObject({ code: 21620 });
});

test('npm run sms --media: the content type from the extension', () => {
  expect([mediaTypeOf('photo.JPG'), mediaTypeOf('/tmp/clip.mp4'), mediaTypeOf('ticket.pdf'), mediaTypeOf('run.exe'), mediaTypeOf('noextension')]).toEqual(['image/jpeg', 'video/mp4', 'application/pdf', undefined, undefined]);
});

test('RCS on the simulator: a capable handset gets RCS from the service\'s RCS sender, then read; one whose number ends in 9 gets the SMS fallback; a person types and taps a suggestion back', async () => {
  const service = `MG${randomBytes(16).toString('hex')}`;
  const agent = `rcs:sim_${service}`;
  const rcs = createTwilioCarrier({ accountSid: simulator.accountSid, authToken, messagingServiceSid: service, rcsFallbackFrom: '+15005550003', apiUrl: simulator.url, contentApiUrl: simulator.url, name: 'simulator' });
  const offered = [{ text: 'Yes', postbackData: 'confirm' }, { text: 'Later', postbackData: 'later' }];
  const statuses = async (to: string) => {
    const message = outgoing({ to, channel: 'rcs', text: 'Table at 7?', suggestions: offered });
    const said = await receiptsOf(rcs, message, to.endsWith('9') ? 2 : 3);
    const channels = catcher.received.filter((captured) => captured.url === message.statusCallbackUrl).map((captured) => rcs.parseReceipt(callbackOf(captured))?.deliveredChannel);
    return said.map((status, k) => `${status} ${channels[k]}`);
  };
  expect(await statuses('+14155550186')).toEqual(['sent rcs', 'delivered rcs', 'read rcs']);
  expect(simulator.api.sentTo('+14155550186').at(-1)).toMatchObject({ from: agent, to: 'rcs:+14155550186', body: 'Table at 7?' });
  expect(await statuses('+14155550189')).toEqual(['sent undefined', 'delivered undefined']);
  expect(simulator.api.sentTo('+14155550189').at(-1)).toMatchObject({ from: '+15005550003', to: '+14155550189' });

  // The person answers the agent that wrote to them: typed, then a tap on one of its suggested replies.
  const typed = await door('/simulator/sms', { from: '+14155550186', to: '+15005550003', channel: 'rcs', text: 'Is there parking?' });
  expect(await typed.json()).toMatchObject({ channel: 'rcs', answer: 200 });
  expect(rcs.parseInbound(callbackOf(catcher.received.at(-1)!))).toMatchObject({ channel: 'rcs', from: '+14155550186', to: agent, text: 'Is there parking?' });
  expect((await door('/simulator/sms', { from: '+14155550186', to: '+15005550003', channel: 'rcs', tap: 'Yes' })).status).toBe(200);
  expect(rcs.parseInbound(callbackOf(catcher.received.at(-1)!))).toMatchObject({ channel: 'rcs', to: agent, text: 'Yes', suggestion: { text: 'Yes', postbackData: 'confirm' } });

  // What the door refuses: a tap on a reply never offered, RCS to a person no RCS sender wrote to.
  expect((await door('/simulator/sms', { from: '+14155550186', to: '+15005550003', channel: 'rcs', tap: 'Maybe' })).status).toBe(400);
  expect((await door('/simulator/sms', { from: '+14155550187', to: '+15005550003', channel: 'rcs', text: 'Hi' })).status).toBe(400);
});
