import { generateKeyPairSync } from 'node:crypto';
import { createCarrierProvider } from '../../src/activities/providers/carrier';
import { createTelnyxCarrier } from '../../src/carriers/telnyx';
import { createTwilioCarrier } from '../../src/carriers/twilio';
import { type Carrier, CarrierRejected, type CarrierSend, CarrierUnavailable } from '../../src/carriers/types';
import { createVonageCarrier } from '../../src/carriers/vonage';
import { CARRIER_ANSWER_MAX_BYTES } from '../../src/net/capped-body';
import { startEndlessAnswer, type EndlessAnswer } from '../support/endless-answer';
import { rejectionOf } from '../support/helpers';

/*
 * A carrier's API host that answers an endless body: each SDK reads to CARRIER_ANSWER_MAX_BYTES and
 * closes the connection. A send answered 2xx may have gone through: it is handed over once, without a
 * carrier reference, never resent nor failed; another status is the failure it says. A lookup (Twilio's
 * Content API, a sent message's) fails for good, naming the carrier and the cap.
 */

const BUFFERS = 16 * 1024 * 1024;
const telnyxKey = Buffer.from(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64');

const hosts: Record<number, EndlessAnswer> = {};
beforeAll(async () => {
  for (const status of [200, 400, 503]) hosts[status] = await startEndlessAnswer({ status });
});
afterAll(async () => {
  for (const host of Object.values(hosts)) await host.close();
});

const carriers: [string, (url: string) => Carrier][] = [
  ['Twilio', (url) => createTwilioCarrier({ accountSid: `AC${'0'.repeat(32)}`, authToken: 't', from: '+15557770000', apiUrl: url, contentApiUrl: url })],
  ['Telnyx', (url) => createTelnyxCarrier({ TELNYX_API_KEY: 'KEY', TELNYX_FROM: '+15557770000', TELNYX_PUBLIC_KEY: telnyxKey, TELNYX_API_URL: `${url}/v2` })],
  ['Vonage', (url) => createVonageCarrier({ VONAGE_API_KEY: 'k', VONAGE_API_SECRET: 's', VONAGE_FROM: '15557770000', VONAGE_SIGNATURE_SECRET: 'x', VONAGE_API_URL: url })],
];

let counter = 0;
function outgoing(): CarrierSend {
  const id = `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`;
  return { id, to: '+14155550100', text: 'Hello', statusCallbackUrl: `https://example.com/providers/x/status/${id}`, dispatchedAt: new Date(), channel: 'sms', media: [] };
}

test.each(carriers)('%s answering a send with an endless 200: handed over once without a reference, the connection closed at the cap', async (_name, make) => {
  const host = hosts[200];
  const before = { requests: host.requests, bytes: host.bytesSent };
  const closed = host.nextClose();
  const provider = createCarrierProvider(make(host.url), 'https://example.com');
  const message = outgoing();
  await expect(provider.deliver({ id: message.id, business: 'acme', client: null, to: message.to, name: null, text: message.text, dispatchedAt: new Date(), channel: 'sms' as const, media: [] })).resolves.toEqual({ providerRef: undefined });
  await closed;
  expect(host.requests - before.requests).toBe(1);
  expect(host.bytesSent - before.bytes).toBeLessThan(CARRIER_ANSWER_MAX_BYTES + BUFFERS);
});

test.each(carriers)('%s answering a send with an endless 400 or 503: the failure its status says', async (name, make) => {
  const refused = await rejectionOf(make(hosts[400].url).send(outgoing()));
  expect(refused).toBeInstanceOf(CarrierRejected);
  expect(refused.message).toBe(`${name} refused the message (HTTP 400)`);
  expect(await rejectionOf(make(hosts[503].url).send(outgoing()))).toBeInstanceOf(CarrierUnavailable);
});

test('Twilio\'s Content API answering an endless 200: the template lookup fails for good, naming Twilio and the cap', async () => {
  const closed = hosts[200].nextClose();
  const twilio = carriers[0][1](hosts[200].url);
  const error = await rejectionOf(twilio.templateApproval!({ contentSid: `HX${'0'.repeat(32)}` }));
  expect(error).toBeInstanceOf(CarrierRejected);
  expect(error).toMatchObject({ code: 'answer-too-large', message: "Twilio's answer to the template lookup was larger than 1 MiB and was not read" });
  await closed;
});

test.each(carriers.slice(0, 2))('%s answering the lookup of a sent message with an endless 200: it fails for good', async (name, make) => {
  const error = await rejectionOf(make(hosts[200].url).findSent(outgoing()));
  expect(error).toMatchObject({ name: 'CarrierRejected', code: 'answer-too-large', message: `${name}'s answer to the lookup of a sent message was larger than 1 MiB and was not read` });
});
