import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { loadConfig } from '../../src/config/index';
import { ensureNamespace } from '../../src/stack/nexus-endpoint';
import { crmProblemOf } from '../../src/nexus/contract';
import { dataPaths } from '../../src/paths';
import { parsePayloadKeys } from '../../src/config/payload-keys';
import { AesGcmPayloadCodec } from '../../src/temporal-client/payload-codec';
import { crmTarget, unreachable } from './target';
import { dealWon } from './workflows';

/*
 * Runs the example caller: a worker for `dealWon` in its own namespace (created if missing), then one
 * run of it. With `npm start` running in another terminal:
 *
 *   npm run example:deal-won -- <business> <user> <client> <agent>
 *
 * It finds the stack's Temporal address and Nexus endpoint in the stack lock `npm start` keeps in its
 * data directory (DATA_DIR, default .data). TEMPORAL_ADDRESS, its TLS and API key settings, and
 * NEXUS_ENDPOINT, as for `npm start`, override it; without either, 127.0.0.1:7233 and crm.
 * CALLER_NAMESPACE (default deals) and CALLER_TASK_QUEUE (default deal-won) name the caller's side.
 */
async function main() {
  const [business, user, client, accountOwner] = process.argv.slice(2);
  if (!accountOwner) throw new Error('Usage: npm run example:deal-won -- <business> <user> <client> <agent>');
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const config = loadConfig();
  const target = await crmTarget(config);
  const { address } = target;
  const namespace = process.env.CALLER_NAMESPACE || 'deals';
  const taskQueue = process.env.CALLER_TASK_QUEUE || 'deal-won';

  // The service encrypts what it puts through Temporal, its Nexus answers too: the caller decodes them
  // with the same keys (TEMPORAL_PAYLOAD_KEYS, or the key npm start keeps in its data directory).
  const devKeys = dataPaths(config.DATA_DIR).devPayloadKeys;
  const keys = config.payloadKeys ?? (existsSync(devKeys) ? parsePayloadKeys(readFileSync(devKeys, 'utf8')) : undefined);
  const dataConverter = keys && { payloadCodecs: [new AesGcmPayloadCodec(keys)] };

  // A person at a terminal waits for the answer: 5 s, not the SDK's 10, to learn nothing listens there.
  const connection = await Connection.connect({ address, ...config.temporalConnection, connectTimeout: '5s' }).catch((error) => {
    throw unreachable(target, error);
  });
  try {
    await ensureNamespace(connection, namespace);
    const worker = await Worker.create({
      connection: await NativeConnection.connect({ address, ...config.temporalConnection }).catch((error) => {
        throw unreachable(target, error);
      }),
      namespace,
      taskQueue,
      dataConverter,
      workflowsPath: require.resolve('./workflows'),
    });
    const temporal = new Client({ connection, namespace, dataConverter });
    const assignment = await worker.runUntil(
      temporal.workflow.execute(dealWon, {
        taskQueue,
        workflowId: `deal-won/${business}/${client}/${randomUUID()}`,
        args: [{ endpoint: target.nexusEndpoint, business, user, client, accountOwner }],
      }),
    );
    console.log(JSON.stringify(assignment, null, 2));
  } catch (error) {
    const problem = error instanceof WorkflowFailedError ? crmProblemOf(error) : undefined;
    if (!problem) throw error;
    console.error(`The CRM refused: ${problem.status} ${problem.type}: ${problem.detail}`);
    process.exitCode = 1;
  } finally {
    await connection.close();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
