import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { TemporalConnectionOptions } from '../config/index';
import { workflowClientTracing } from '../telemetry/temporal';

/** The client side, with the same TLS, API key and metadata the worker's native connection uses; its workflow starts carry the active trace. */
export async function connectTemporalClient(address: string, namespace: string, options: TemporalConnectionOptions = {}, dataConverter?: DataConverter): Promise<Client> {
  const connection = await Connection.connect({ address, ...options });
  return new Client({ connection, namespace, dataConverter, interceptors: { workflow: workflowClientTracing() } });
}
