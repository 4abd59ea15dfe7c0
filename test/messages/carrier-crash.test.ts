import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createCarrierProvider } from '../../src/activities/providers/carrier';
import { type Carrier, CarrierUnavailable } from '../../src/carriers';
import { createTwilioCarrier } from '../../src/carriers/twilio';
import { createPrisma, type Prisma } from '../../src/db/prisma';
import { messageWorkflowId } from '../../src/domain';
import { startFakeTwilio, type FakeTwilio } from '../support/fake-twilio';
import { quietTemporalRuntime, uniqueName } from '../support/helpers';
import { testSecretBox } from '../support/secrets';

/*
 * A carrier takes no idempotency key: an attempt that reached Twilio but died before its acceptance was
 * recorded (a worker killed, an answer lost) must not send the text again. The next attempt asks Twilio
 * for its copy first, and never takes a copy another of our messages holds.
 */
let prisma: Prisma;
let fake: FakeTwilio;
let connection: NativeConnection;
let clientConnection: Connection;
let client: Client;
const business = uniqueName('carrier-crash');

beforeAll(async () => {
  quietTemporalRuntime();
  prisma = createPrisma(process.env.TEST_DATABASE_URL!, 3);
  fake = await startFakeTwilio();
  connection = await NativeConnection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  clientConnection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  client = new Client({ connection: clientConnection });
});
afterAll(async () => {
  await connection?.close();
  await clientConnection?.close();
  await prisma?.$disconnect();
  await fake?.stop();
});

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
  const id = randomUUID();
  const workflowId = messageWorkflowId(business, id);
  await prisma.message.create({ data: { id, business, ownerId: 'u1', messageType: 'text', phone, text, sendAt: new Date(), workflowId } });
  const taskQueue = uniqueName('tq');
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    activities: createActivities({ prisma, secrets: testSecretBox(), provider: createCarrierProvider(carrier, 'http://127.0.0.1:9', prisma), temporal: client, taskQueue }),
    shutdownGraceTime: '1 second',
  });
  await worker.runUntil(async () => {
    const handle = await client.workflow.start('sendMessage', { workflowId, taskQueue, args: [{ business, messageId: id, sendAt: new Date().toISOString() }] });
    expect(await handle.result()).toEqual({ outcome: 'sent' });
  });
  return id;
}

test('an attempt after one whose answer was lost finds the copy Twilio made and does not send it again', async () => {
  const phone = '+14155550161';
  const id = await sendThroughWorkflow(losingFirstAnswer(twilio()), phone, 'Your table is ready');
  const copies = fake.api.sentTo(phone);
  expect(copies).toHaveLength(1);
  expect(await prisma.message.findUniqueOrThrow({ where: { id } })).toEqual(expect.objectContaining({ status: 'sent', attempts: 2, provider: 'twilio', providerRef: copies[0].sid }));
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
  const [a, b] = await Promise.all([first, second].map((id) => prisma.message.findUniqueOrThrow({ where: { id } })));
  expect(b.attempts).toBe(2);
  expect(new Set([a.providerRef, b.providerRef])).toEqual(new Set(copies.map((copy) => copy.sid)));
});
