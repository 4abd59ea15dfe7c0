import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createPrisma, type Prisma } from '../../src/db/prisma';
import { messageWorkflowId } from '../../src/domain';
import { eventually, quietTemporalRuntime, uniqueName } from './helpers';
import { testSecretBox } from './secrets';
import './workflow-bundle-once';

type Provider = Parameters<typeof createActivities>[0]['provider'];

/**
 * For a suite that runs its own worker against the shared test servers: a database client, a worker
 * connection and a Temporal client, opened before the suite's tests and closed after them, and a
 * business of its own (named after `businessPrefix`) for its messages.
 */
export function useOwnWorker(businessPrefix: string) {
  const business = uniqueName(businessPrefix);
  let prisma: Prisma;
  let connection: NativeConnection;
  let clientConnection: Connection;
  let client: Client;
  beforeAll(async () => {
    quietTemporalRuntime();
    prisma = createPrisma(process.env.TEST_DATABASE_URL!, 3);
    connection = await NativeConnection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
    clientConnection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
    client = new Client({ connection: clientConnection });
  });
  afterAll(async () => {
    await connection?.close();
    await clientConnection?.close();
    await prisma?.$disconnect();
  });

  /**
   * A message of the suite's business due now, and a worker of a task queue of its own whose activities hand it to
   * `provider`; `send()` runs the message's workflow and expects it to end `sent`.
   */
  /**
   * A message row and its run on a worker of its own. `send()` runs it until it is sent: until the run's
   * result for the webhook and log providers; for a carrier, until the row is `sent`, then the run, which
   * waits for the carrier's receipt (none comes here), is terminated.
   */
  async function messageOnOwnWorker(message: { phone: string; text: string }, provider: Provider, interceptors?: WorkerOptions['interceptors'], until: 'result' | 'sent' = 'result') {
    const id = randomUUID();
    const workflowId = messageWorkflowId(business, id);
    await prisma.message.create({ data: { id, business, ownerId: 'u1', messageType: 'text', phone: message.phone, text: message.text, sendAt: new Date(), workflowId } });
    const taskQueue = uniqueName('tq');
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
      activities: createActivities({ prisma, secrets: testSecretBox(), provider, temporal: client, taskQueue }),
      ...(interceptors && { interceptors }),
      shutdownGraceTime: '1 second',
    });
    const send = () =>
      worker.runUntil(async () => {
        const handle = await client.workflow.start('sendMessage', { workflowId, taskQueue, args: [{ business, messageId: id, sendAt: new Date().toISOString() }] });
        if (until === 'result') {
          expect(await handle.result()).toEqual({ outcome: 'sent' });
          return;
        }
        await eventually(async () => ((await prisma.message.findUniqueOrThrow({ where: { id } })).status === 'sent' ? true : undefined), 60_000);
        await handle.terminate('sent: its receipt is not part of this test');
      });
    return { id, send };
  }

  return {
    get prisma() {
      return prisma;
    },
    messageOnOwnWorker,
  };
}
