import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { ensureNamespace, ensureNexusEndpoint } from '../../src/stack/nexus-endpoint';
import type { Call, CallOutcome } from './nexus-caller-workflows';
import { uniqueName } from './helpers';
import { NEXUS_CALLER_NAMESPACE } from './nexus-namespace';


export interface NexusCaller {
  /** A fresh endpoint leading to the suite's worker. */
  endpoint: string;
  client: Client;
  taskQueue: string;
  /** Runs the calls in one caller workflow of the caller namespace. */
  call(calls: Call[]): Promise<CallOutcome[]>;
  stop(): Promise<void>;
}

/**
 * A caller namespace's worker and client, and an endpoint named for this suite that targets `taskQueue`
 * in `default`, on the run's Temporal or the one at `address`.
 */
export async function startNexusCaller(target: { taskQueue: string; namespace?: string; address?: string }): Promise<NexusCaller> {
  const address = target.address ?? process.env.TEST_TEMPORAL_ADDRESS!;
  const connection = await Connection.connect({ address });
  await ensureNamespace(connection, NEXUS_CALLER_NAMESPACE);
  // Endpoint names: a letter, then letters and digits, so every server and Temporal Cloud accept them.
  const endpoint = `crmtest${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  await ensureNexusEndpoint(connection, { name: endpoint, namespace: target.namespace ?? 'default', taskQueue: target.taskQueue });

  const taskQueue = uniqueName('nexus-caller');
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace: NEXUS_CALLER_NAMESPACE,
    taskQueue,
    workflowsPath: require.resolve('./nexus-caller-workflows'),
  });
  const running = worker.run();
  const client = new Client({ connection, namespace: NEXUS_CALLER_NAMESPACE });

  return {
    endpoint,
    client,
    taskQueue,
    call: (calls) => client.workflow.execute('callCrm', { taskQueue, workflowId: uniqueName('caller'), args: [endpoint, calls] }),
    async stop() {
      worker.shutdown();
      await running;
      await nativeConnection.close();
      await connection.operatorService
        .listNexusEndpoints({ name: endpoint })
        .then(({ endpoints }) =>
          Promise.all((endpoints ?? []).map((e) => connection.operatorService.deleteNexusEndpoint({ id: e.id, version: e.version }))),
        );
      await connection.close();
    },
  };
}
