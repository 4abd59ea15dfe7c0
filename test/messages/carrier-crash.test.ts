import { createCarrierProvider } from '../../src/activities/providers/carrier';
import { type Carrier, CarrierUnavailable } from '../../src/carriers';
import { createTwilioCarrier } from '../../src/carriers/twilio';
import { startFakeTwilio, type FakeTwilio } from '../support/fake-twilio';
import { useOwnWorker } from '../support/own-worker';

/*
 * A carrier takes no idempotency key: an attempt that reached Twilio but died before its acceptance was
 * recorded (a worker killed, an answer lost) must not send the text again. The next attempt asks Twilio
 * for its copy first, and never takes a copy another of our messages holds.
 */
const own = useOwnWorker('carrier-crash');
let fake: FakeTwilio;

beforeAll(async () => {
  fake = await startFakeTwilio();
});
afterAll(() => fake?.stop());

const twilio = () => createTwilioCarrier({ accountSid: fake.accountSid, authToken: fake.authToken, from: fake.from, apiUrl: fake.url });

/** The carrier, except that the first send's answer is lost after Twilio created the message. */
function losingFirstAnswer(carrier: Carrier): Carrier {
  let lost = false;
  return {
    ...carrier,
    async send(message) {
      const accepted = await carrier.send(message);
      if (!lost) {
        lost = true;
        throw new CarrierUnavailable('Twilio unreachable: ECONNRESET');
      }
      return accepted;
    },
  };
}

async function sendThroughWorkflow(carrier: Carrier, phone: string, text: string): Promise<string> {
  const { id, send } = await own.messageOnOwnWorker({ phone, text }, createCarrierProvider(carrier, 'http://127.0.0.1:9', own.prisma), undefined, 'sent');
  await send();
  return id;
}

test('an attempt after one whose answer was lost finds the copy Twilio made and does not send it again', async () => {
  const phone = '+14155550161';
  const id = await sendThroughWorkflow(losingFirstAnswer(twilio()), phone, 'Your table is ready');
  const copies = fake.api.sentTo(phone);
  expect(copies).toHaveLength(1);
  expect(await own.prisma.message.findUniqueOrThrow({ where: { id } })).toEqual(expect.objectContaining({ status: 'sent', attempts: 2, provider: 'twilio', providerRef: copies[0].sid }));
  // The lookup was asked: a GET of the messages to that number.
  expect(fake.api.requests.some((request) => request.method === 'GET' && request.params.To === phone)).toBe(true);
});

test("a copy another of our messages holds is not taken: the same text to the same number is sent again", async () => {
  const phone = '+14155550162';
  const first = await sendThroughWorkflow(twilio(), phone, 'See you at 5');
  // The second's first attempt fails before reaching Twilio; its retry finds the first one's copy.
  fake.api.failNext(1);
  const second = await sendThroughWorkflow(twilio(), phone, 'See you at 5');
  const copies = fake.api.sentTo(phone);
  expect(copies).toHaveLength(2);
  const [a, b] = await Promise.all([first, second].map((id) => own.prisma.message.findUniqueOrThrow({ where: { id } })));
  expect(b.attempts).toBe(2);
  expect(new Set([a.providerRef, b.providerRef])).toEqual(new Set(copies.map((copy) => copy.sid)));
});
