import { randomBytes } from 'node:crypto';
import { channelFlows, pictureBytes, startChannelsStack, startForwarder } from '../../support/channels-end-to-end';
import { startFakeTwilio, type FakeTwilio } from '../../support/fake-twilio';
import { eventually, phoneSequence, waitForStatus } from '../../support/helpers';
import { originOf, uniqueName, type TestStack } from '../../support/stack';

/*
 * The client writes first (issue 48): on WhatsApp (click-to-chat) or by SMS, to a business's own number
 * no user of it has texted the phone from. The text is the one user's who holds a client with that
 * phone, in that business only; it opens that user's WhatsApp window, conversation and events. And a
 * file received on a number retired since is still the owner's to fetch.
 */
const ADMIN_TOKEN = randomBytes(24).toString('base64url');
// Numbers of this suite only: the test database is shared with suites running beside it.
const prefix = `+1629${String(100 + Math.floor(Math.random() * 899))}`;
const SHARED = `${prefix}0000`;
const ACME_NUMBER = `${prefix}0001`;
const GLOBEX_NUMBER = `${prefix}0002`;
const newPhone = phoneSequence(`+1647${String(100 + Math.floor(Math.random() * 899))}`, 1000);
const wa = (number: string) => `whatsapp:${number}`;

let fake: FakeTwilio;
let forwarder: Awaited<ReturnType<typeof startForwarder>>;
let stack: TestStack;
let alice: string;
const globex = uniqueName('globex');

beforeAll(async () => {
  fake = await startFakeTwilio({ from: [SHARED, ACME_NUMBER, GLOBEX_NUMBER] });
  forwarder = await startForwarder();
  ({ stack, token: alice } = await startChannelsStack({
    MESSAGE_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: fake.accountSid,
    TWILIO_AUTH_TOKEN: fake.authToken,
    TWILIO_FROM: SHARED,
    TWILIO_API_URL: fake.url,
    TWILIO_CONTENT_API_URL: fake.url,
    PUBLIC_BASE_URL: forwarder.url,
    ADMIN_TOKEN,
  }));
  forwarder.target(stack.baseUrl);
  for (const [business, number] of [
    [stack.business, ACME_NUMBER],
    [globex, GLOBEX_NUMBER],
  ]) {
    expect(await admin('PUT', `/businesses/${business}/numbers/${encodeURIComponent(number)}`, { carrier: 'twilio', channels: ['sms', 'mms', 'whatsapp'] })).toBe(200);
  }
});
afterAll(async () => {
  await stack?.stop();
  await forwarder?.stop();
  await fake?.stop();
});

const admin = (method: string, path: string, body?: unknown) =>
  fetch(`${originOf(stack)}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((res) => res.status);
const flows = channelFlows(() => ({ stack, token: alice }));
const { api, sent, lastInbound, fetchMedia } = flows;
const as = (token: string, business = stack.business) => (method: string, path: string, body?: unknown) => stack.api(method, `//ext/v2/${business}${path}`, { token, ...(body !== undefined && { body }) });

/** The phone writes to `to` first, signed as Twilio signs (through the forwarder, the public URL). */
async function writes(phone: string, to: string, body: string, options: { channel?: 'sms' | 'whatsapp'; media?: { contentType: string; data: Buffer }[] } = {}) {
  const answer = await fake.api.postInbound(`${forwarder.url}/providers/twilio/inbound`, { from: phone, to, body, ...options });
  expect(answer.status).toBe(200);
}
const inboundTexts = async (call: ReturnType<typeof as>) => (await call('GET', '/messages?direction=inbound')).body.messages.map((m: any) => m.text_message);
const unmatched = async () => (await api('GET', '/unmatched-inbound?limit=100')).body.texts;

test("a client writing first on WhatsApp to the business's number reaches the user who holds it: the window opens, a free reply goes, the conversation waits", async () => {
  const phone = newPhone();
  expect((await api('POST', '/clients', { _id: 'c-click', name: 'Ada', phone })).status).toBe(201);
  // Another business's user holds a client with the same phone: a tenant apart, it changes nothing here.
  const bob = as(stack.token('bob'), globex);
  expect((await bob('POST', '/clients', { _id: 'c-click', name: 'Ada', phone })).status).toBe(201);

  await writes(phone, ACME_NUMBER, 'Hi, I saw your ad', { channel: 'whatsapp' });
  expect(await lastInbound('c-click')).toMatchObject({ direction: 'inbound', channel: 'whatsapp', client: 'c-click', client_phone: phone, client_name: 'Ada', text_message: 'Hi, I saw your ad' });
  const [received] = (await api('GET', '/events?type=message.received&client=c-click')).body.events;
  expect(received.data).toMatchObject({ text_message: 'Hi, I saw your ad', to: ACME_NUMBER });
  const [conversation] = (await api('GET', '/conversations?client=c-click')).body.conversations;
  expect(conversation).toMatchObject({ sender: ACME_NUMBER, status: 'open', waiting_since: expect.any(String) });
  expect((await api('GET', '/events?type=conversation.opened&client=c-click')).body.events).toHaveLength(1);

  const reply = await sent({ client: 'c-click', channel: 'whatsapp', text_message: 'Hello Ada, how can we help?' });
  expect(reply).toMatchObject({ channel: 'whatsapp', from: ACME_NUMBER, conversation: conversation._id });
  expect(fake.api.requests.find((r) => r.method === 'POST' && r.params.Body === 'Hello Ada, how can we help?')?.params).toMatchObject({ To: wa(phone), From: wa(ACME_NUMBER) });
  expect(await inboundTexts(bob)).toEqual([]);
  expect((await bob('GET', '/events?type=message.received')).body.events).toEqual([]);
});

test('an SMS lead texting the number first is its holder\'s; a phone two users hold (or one user twice) stays unmatched; a user who texted the phone from it keeps its replies', async () => {
  const carolToken = stack.token('carol');
  const carol = as(carolToken);
  const lead = newPhone();
  expect((await api('POST', '/clients', { _id: 'c-lead', phone: lead })).status).toBe(201);
  await writes(lead, ACME_NUMBER, 'Is the flat still available?');
  expect(await lastInbound('c-lead')).toMatchObject({ channel: 'sms', client: 'c-lead', text_message: 'Is the flat still available?' });
  expect((await api('GET', '/conversations?waiting=true&client=c-lead')).body.conversations).toHaveLength(1);

  const shared = newPhone();
  expect((await api('POST', '/clients', { _id: 'c-shared', phone: shared })).status).toBe(201);
  expect((await carol('POST', '/clients', { _id: 'c-shared', phone: shared })).status).toBe(201);
  const twice = newPhone();
  expect((await api('POST', '/clients', { _id: 'c-twice-1', phone: twice })).status).toBe(201);
  expect((await api('POST', '/clients', { _id: 'c-twice-2', phone: twice })).status).toBe(201);
  await writes(shared, ACME_NUMBER, 'Whose client am I?');
  await writes(twice, ACME_NUMBER, 'Which one am I?');
  expect(await inboundTexts(carol)).toEqual([]);
  expect(await inboundTexts(as(alice))).not.toEqual(expect.arrayContaining(['Whose client am I?']));
  expect(await inboundTexts(as(alice))).not.toEqual(expect.arrayContaining(['Which one am I?']));
  const kept = await unmatched();
  expect(kept.filter((t: any) => [shared, twice].includes(t.from)).map((t: any) => [t.text, t.ambiguous])).toEqual(
    expect.arrayContaining([
      ['Whose client am I?', true],
      ['Which one am I?', true],
    ]),
  );

  // Carol texted the phone from the number: its replies are hers, though alice holds a client with it.
  const texted = newPhone();
  expect((await api('POST', '/clients', { _id: 'c-texted', phone: texted })).status).toBe(201);
  const res = await carol('POST', '/messages', { message_type: 'text', client_phone: texted, text_message: 'Your viewing is confirmed' });
  expect(res.status).toBe(202);
  expect((await waitForStatus(stack.api, carolToken, res.body._id, 'sent')).from).toBe(ACME_NUMBER);
  await writes(texted, ACME_NUMBER, 'Thanks, see you');
  expect(await inboundTexts(carol)).toEqual(['Thanks, see you']);
  expect((await api('GET', '/clients/c-texted/messages')).body.messages).toEqual([]);
});

test('a file received on a number retired since is still fetched for its owner, byte for byte', async () => {
  const phone = newPhone();
  expect((await api('POST', '/clients', { _id: 'c-files', phone })).status).toBe(201);
  expect((await sent({ client: 'c-files', text_message: 'Please send us a photo' })).from).toBe(ACME_NUMBER);
  const bytes = pictureBytes();
  await writes(phone, ACME_NUMBER, 'The photo of the damage', { media: [{ contentType: 'image/jpeg', data: bytes }] });
  const inbound = await eventually(async () => lastInbound('c-files'));
  expect(await fetchMedia(inbound)).toEqual({ status: 200, contentType: 'image/jpeg', bytes });

  expect(await admin('DELETE', `/businesses/${stack.business}/numbers/${encodeURIComponent(ACME_NUMBER)}`)).toBe(204);
  expect(await fetchMedia(inbound)).toEqual({ status: 200, contentType: 'image/jpeg', bytes });
});
