import { OUTSIDE_WHATSAPP_WINDOW } from '../../../src/domain/channels';
import { OPT_OUT_CONFIRMATION } from '../../../src/use-cases/carriers/keywords';
import { channelFlows, OUR_MEDIA, pictureBytes, startChannelsStack, startForwarder } from '../../support/channels-end-to-end';
import { SIMULATOR_TEMPLATES, startFakeTwilio, type FakeTwilio } from '../../support/fake-twilio';
import { eventually, expectProblem, phoneSequence } from '../../support/helpers';
import type { TestStack } from '../../support/stack';

/*
 * WhatsApp and MMS through the whole service on Twilio (issue 40's "done when"): the API accepts, the
 * workflow sends through the twilio SDK to the Twilio fake (TWILIO_API_URL, and TWILIO_CONTENT_API_URL
 * for templates' approval), and the fake posts its callbacks signed with the account's auth token over
 * the public URL it was given, which forwards to the API.
 */
// A sender and phones of this suite only: opt-outs are per (sender, phone) across the businesses of the shared database.
const FROM = '+15558880100';
const newPhone = phoneSequence(`+1646${String(100 + Math.floor(Math.random() * 899))}`, 1000);
const wa = (number: string) => `whatsapp:${number}`;

let fake: FakeTwilio;
let forwarder: Awaited<ReturnType<typeof startForwarder>>;
let stack: TestStack;
let token: string;
let PUBLIC: string;

beforeAll(async () => {
  fake = await startFakeTwilio({ from: [FROM] });
  forwarder = await startForwarder();
  PUBLIC = forwarder.url;
  ({ stack, token } = await startChannelsStack({
    MESSAGE_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: fake.accountSid,
    TWILIO_AUTH_TOKEN: fake.authToken,
    TWILIO_FROM: FROM,
    TWILIO_API_URL: fake.url,
    TWILIO_CONTENT_API_URL: fake.url,
    PUBLIC_BASE_URL: PUBLIC,
  }));
  forwarder.target(stack.baseUrl);
});
afterAll(async () => {
  await stack?.stop();
  await forwarder?.stop();
  await fake?.stop();
});

const flows = channelFlows(() => ({ stack, token }));
const { send, sent, getMessage, textedClient, lastInbound, putTemplate, template, expectTemplateRules, sentVisit, fetchMedia, eventTypesOf, optOutsOf, expectOutsideWindow } = flows;

/** What the fake was asked to send for a message (its form, as the POST carried it): the one asking for that message's receipts. */
const requestFor = (message: { _id: string }) =>
  fake.api.requests.find((r) => r.method === 'POST' && r.status === 201 && r.params.StatusCallback === `${PUBLIC}/providers/twilio/status/${message._id}`);
const inboundUrl = () => `${PUBLIC}/providers/twilio/inbound`;
/** The client writes to our number, on WhatsApp or by SMS, with files or not: posted by the fake, signed. */
const clientWrites = async (from: string, body: string, options: { channel?: 'sms' | 'whatsapp'; media?: { contentType: string; data: Buffer }[] } = {}) => {
  const answer = await fake.api.postInbound(inboundUrl(), { from, to: FROM, body, ...options });
  expect(answer.status).toBe(200);
};

/** A client texted once by SMS, then writing on WhatsApp: its window is open. */
async function whatsappClient(id: string): Promise<string> {
  const phone = newPhone();
  await textedClient(id, phone);
  await clientWrites(phone, 'Can we talk here?', { channel: 'whatsapp' });
  return phone;
}

test("no window: a free WhatsApp text is a 409 and never reaches Twilio; the client's WhatsApp message opens it and the reply goes whatsapp:-prefixed; a read receipt makes it read", async () => {
  const phone = newPhone();
  await textedClient('c-window', phone);
  await expectOutsideWindow({ client: 'c-window' });
  expect(fake.api.sentTo(phone).map((m) => m.to)).toEqual([phone]);
  // Unsigned, the client's WhatsApp message is refused and opens nothing.
  expect((await fake.api.postInbound(inboundUrl(), { from: phone, to: FROM, body: 'Forged', channel: 'whatsapp' }, null)).status).toBe(403);
  await expectOutsideWindow({ client: 'c-window' });

  await clientWrites(phone, 'Can we talk here?', { channel: 'whatsapp' });
  expect(await lastInbound('c-window')).toMatchObject({ channel: 'whatsapp', client_phone: phone, text_message: 'Can we talk here?', media: [] });

  const reply = await sent({ client: 'c-window', channel: 'whatsapp', text_message: 'Of course!' });
  expect(reply).toMatchObject({ channel: 'whatsapp', provider: 'twilio', template: null, read_at: null });
  expect(requestFor(reply)?.params).toEqual({ To: wa(phone), From: wa(FROM), Body: 'Of course!', StatusCallback: `${PUBLIC}/providers/twilio/status/${reply._id}` });

  await fake.api.postReceipts(reply.provider_ref);
  const read = await getMessage(reply._id);
  expect(read).toMatchObject({ status: 'read', read_at: expect.any(String), delivered_at: expect.any(String) });
  expect(await eventTypesOf(reply._id)).toEqual(['message.scheduled', 'message.sending', 'message.sent', 'message.delivered', 'message.read']);
});

test("Twilio's own refusal outside the window (63016, by status callback) fails the message in our words", async () => {
  const phone = await whatsappClient('c-63016');
  // Twilio knows of no WhatsApp message from the client (our record of it says otherwise): it takes the text, then fails it.
  fake.api.windows.set(FROM, phone, null);
  const message = await sent({ client: 'c-63016', channel: 'whatsapp', text_message: 'Hello again' });
  await fake.api.postReceipts(message.provider_ref);
  expect(await getMessage(message._id)).toMatchObject({ status: 'failed', error_code: '63016', error: expect.stringContaining(OUTSIDE_WHATSAPP_WINDOW), read_at: null });
});

test("templates by Content SID, approval read from Twilio's Content API: consent first, every variable, approved only; it goes as ContentSid and ContentVariables", async () => {
  const approvals = () => fake.api.requests.filter((r) => r.method === 'GET' && /^\/v1\/Content\/HX[0-9a-f]{32}\/ApprovalRequests$/.test(r.path)).map((r) => r.path);
  const visit = await putTemplate('visit', { content_sid: SIMULATOR_TEMPLATES.approved.sid });
  expect(visit).toMatchObject({ _id: 'visit', content_sid: SIMULATOR_TEMPLATES.approved.sid, approval: 'approved', approval_checked_at: expect.any(String) });
  const offer = await putTemplate('offer', { content_sid: SIMULATOR_TEMPLATES.pending.sid }, { variables: ['1'], body: SIMULATOR_TEMPLATES.pending.body });
  expect(offer.approval).toBe('pending');
  expect(approvals()).toEqual([`/v1/Content/${SIMULATOR_TEMPLATES.approved.sid}/ApprovalRequests`, `/v1/Content/${SIMULATOR_TEMPLATES.pending.sid}/ApprovalRequests`]);
  expect(fake.api.requests.filter((r) => r.path.startsWith('/v1/Content')).every((r) => r.headers.authorization === `Basic ${Buffer.from(`${fake.accountSid}:${fake.authToken}`).toString('base64')}`)).toBe(true);

  const phone = newPhone();
  await expectTemplateRules('c-tpl', phone);
  expectProblem(await send(template('c-tpl', { 1: '20% off' }, 'offer')), 409, 'Template offer is not approved by WhatsApp (pending)');

  const message = await sentVisit('c-tpl');
  const request = requestFor(message)!;
  expect(request.params).toEqual({ To: wa(phone), From: wa(FROM), ContentSid: SIMULATOR_TEMPLATES.approved.sid, ContentVariables: expect.any(String), StatusCallback: `${PUBLIC}/providers/twilio/status/${message._id}` });
  expect(JSON.parse(request.params.ContentVariables)).toEqual({ 1: 'Ada', 2: 'Tuesday' });
  expect(fake.api.messages.find((m) => m.sid === message.provider_ref)!.body).toBe('Hello Ada, your appointment is on Tuesday.');

  // WhatsApp approves the other one since: the next send asks Twilio again, and it goes.
  fake.api.contents.setApproval(SIMULATOR_TEMPLATES.pending.sid, 'approved');
  const approvedSince = await sent({ client: 'c-tpl', channel: 'whatsapp', template: { _id: 'offer', variables: { 1: '20% off' } } });
  expect(requestFor(approvedSince)!.params).toMatchObject({ ContentSid: SIMULATOR_TEMPLATES.pending.sid, ContentVariables: '{"1":"20% off"}' });
  expect((await flows.api('GET', '/templates/offer')).body.approval).toBe('approved');
});

test('an MMS goes with each media URL as a repeated MediaUrl beside its Body', async () => {
  const phone = newPhone();
  const message = await sent({ client_phone: phone, text_message: 'Our menu and how to find us', media: OUR_MEDIA });
  expect(message).toMatchObject({ channel: 'sms', media: OUR_MEDIA });
  expect(message.provider_ref).toMatch(/^MM[0-9a-f]{32}$/);
  const request = requestFor(message)!;
  expect(request.all).toEqual({ To: [phone], From: [FROM], Body: ['Our menu and how to find us'], MediaUrl: OUR_MEDIA.map((m) => m.url), StatusCallback: [`${PUBLIC}/providers/twilio/status/${message._id}`] });
});

test("a client's files, by MMS and on WhatsApp, are streamed through the API with the account's credentials, byte for byte", async () => {
  const phone = await whatsappClient('c-files');
  const basic = `Basic ${Buffer.from(`${fake.accountSid}:${fake.authToken}`).toString('base64')}`;
  for (const channel of ['sms', 'whatsapp'] as const) {
    const bytes = pictureBytes();
    await clientWrites(phone, `A photo by ${channel}`, { channel, media: [{ contentType: 'image/jpeg', data: bytes }] });
    const inbound = await lastInbound('c-files');
    expect(inbound).toMatchObject({ channel, text_message: `A photo by ${channel}`, media: [{ url: `/ext/v2/${stack.business}/messages/${inbound._id}/media/0`, content_type: 'image/jpeg', size: null }] });

    const before = fake.api.requests.length;
    const file = await fetchMedia(inbound);
    expect(file).toEqual({ status: 200, contentType: 'image/jpeg', bytes });
    const [asked, link] = fake.api.requests.slice(before);
    expect(asked).toMatchObject({ method: 'GET', path: expect.stringMatching(new RegExp(`^/2010-04-01/Accounts/${fake.accountSid}/Messages/MM[0-9a-f]{32}/Media/ME[0-9a-f]{32}$`)), status: 307 });
    expect(asked.headers.authorization).toBe(basic);
    // Past Twilio's redirect, the short-lived link is asked without them.
    expect(link).toMatchObject({ method: 'GET', path: expect.stringMatching(/^\/simulator\/media\//), status: 200 });
    expect(link.headers.authorization).toBeUndefined();
  }
  expect((await fetchMedia({ media: [{ url: `/ext/v2/${stack.business}/messages/${(await lastInbound('c-files'))._id}/media/1` }] })).status).toBe(404);
});

test('a STOP on WhatsApp opts the client out of WhatsApp only: the confirmation goes back on WhatsApp, WhatsApp sends are refused, SMS still goes', async () => {
  const phone = await whatsappClient('c-stop');
  await clientWrites(phone, 'STOP', { channel: 'whatsapp' });
  const confirmation = await eventually(async () => fake.api.requests.find((r) => r.method === 'POST' && r.params.To === wa(phone) && r.params.Body === OPT_OUT_CONFIRMATION));
  expect(confirmation.params).toEqual({ To: wa(phone), From: wa(FROM), Body: OPT_OUT_CONFIRMATION });
  expect(await optOutsOf(phone)).toEqual([expect.objectContaining({ phone, sender: FROM, channel: 'whatsapp', status: 'opted_out', source: 'keyword' })]);

  expectProblem(await send({ client: 'c-stop', channel: 'whatsapp', text_message: 'Are you sure?' }), 409, 'Recipient has opted out of WhatsApp messages');
  const sms = await sent({ client: 'c-stop', text_message: 'Your order shipped' });
  expect(requestFor(sms)!.params).toMatchObject({ To: phone, From: FROM, Body: 'Your order shipped' });
});
