import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type ActivityInboundCallsInterceptor } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createWebhookProvider } from '../../src/activities/providers/webhook';
import { createPrisma, type Prisma } from '../../src/db/prisma';
import { messageWorkflowId } from '../../src/domain';
import { quietTemporalRuntime, uniqueName } from '../support/helpers';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { testSecretBox } from '../support/secrets';

/*
 * A worker killed after the receiver accepted a message but before Temporal heard of it: the attempt
 * times out and is tried again. The retry must find the delivery recorded and not post it again.
 */
let prisma: Prisma;
let receiver: WebhookReceiver;
let connection: NativeConnection;
let clientConnection: Connection;
let client: Client;
const business = uniqueName('redeliver');

beforeAll(async () => {
  quietTemporalRuntime();
  prisma = createPrisma(process.env.TEST_DATABASE_URL!, 3);
  receiver = await startWebhookReceiver();
  connection = await NativeConnection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  clientConnection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  client = new Client({ connection: clientConnection });
});
afterAll(async () => {
  await connection?.close();
  await clientConnection?.close();
  await prisma?.$disconnect();
  await receiver?.close();
});

/** The first attempt of the hand-over (`sendDueMessage`, a local activity) does its work, then never reports back: a worker killed at that moment. */
const loseFirstDeliveryReport = (): ActivityInboundCallsInterceptor => ({
  async execute(input, next) {
    const result = await next(input);
    const { activityType, attempt } = Context.current().info;
    if (activityType === 'sendDueMessage' && attempt === 1) {
      await Context.current().cancelled;
    }
    return result;
  },
});

test('a retry of an attempt whose report was lost after the receiver accepted the message does not post it again', async () => {
  const id = randomUUID();
  const workflowId = messageWorkflowId(business, id);
  await prisma.message.create({
    data: { id, business, ownerId: 'u1', messageType: 'text', phone: '+14155550123', text: 'Once only', sendAt: new Date(), workflowId },
  });
  const taskQueue = uniqueName('tq');
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    activities: createActivities({ prisma, secrets: testSecretBox(), provider: createWebhookProvider({ url: receiver.url }), temporal: client, taskQueue }),
    interceptors: { activity: [() => ({ inbound: loseFirstDeliveryReport() })] },
    shutdownGraceTime: '1 second',
  });
  const started = Date.now();
  await worker.runUntil(async () => {
    const handle = await client.workflow.start('sendMessage', { workflowId, taskQueue, args: [{ business, messageId: id, sendAt: new Date().toISOString() }] });
    expect(await handle.result()).toEqual({ outcome: 'sent' });
  });

  expect(receiver.requestsFor(id)).toHaveLength(1);
  // The lost attempt is given up after its 13 s start-to-close timeout (the webhook's 10 s and a margin), then tried again.
  expect(Date.now() - started).toBeLessThan(18_000);
  const message = await prisma.message.findUniqueOrThrow({ where: { id } });
  expect(message).toEqual(expect.objectContaining({ status: 'sent', attempts: 1, providerRef: `rcv-${id}`, providerAcceptedAt: expect.any(Date) }));
}, 120_000);
