import type { ConnectionLike } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time';
import { CRM_SERVICE_NAME } from '../domain/nexus';

export interface NexusEndpointTarget {
  /** The endpoint's name, which caller workflows use. */
  name: string;
  namespace: string;
  taskQueue: string;
}

const ALREADY_EXISTS = 6;

const description = `Service \`${CRM_SERVICE_NAME}\` of the CRM messaging service: assignAgents, unassignAgent, getAssignments, sendMessage, cancelMessage. Contract: \`src/nexus/contract.ts\`.`;

async function findEndpoint(connection: ConnectionLike, name: string) {
  const { endpoints } = await connection.operatorService.listNexusEndpoints({ name, pageSize: 1 });
  return endpoints?.find((endpoint) => endpoint.spec?.name === name);
}

/**
 * Creates the endpoint, or points an existing one of that name at this namespace and task queue;
 * calling it again changes nothing. Returns the endpoint's id.
 */
export async function ensureNexusEndpoint(connection: ConnectionLike, target: NexusEndpointTarget): Promise<string> {
  const spec = {
    name: target.name,
    description: defaultPayloadConverter.toPayload(description),
    target: { worker: { namespace: target.namespace, taskQueue: target.taskQueue } },
  };
  for (let attempt = 0; ; attempt++) {
    const existing = await findEndpoint(connection, target.name);
    if (existing?.id) {
      const worker = existing.spec?.target?.worker;
      if (worker?.namespace === target.namespace && worker?.taskQueue === target.taskQueue) return existing.id;
      await connection.operatorService.updateNexusEndpoint({ id: existing.id, version: existing.version, spec });
      return existing.id;
    }
    try {
      const { endpoint } = await connection.operatorService.createNexusEndpoint({ spec });
      return endpoint!.id!;
    } catch (error) {
      // Another process created it first: read it on the next round.
      if ((error as { code?: number }).code !== ALREADY_EXISTS || attempt > 0) throw error;
    }
  }
}

/**
 * `npm start`'s endpoint line. On its own dev server the endpoint is made here; an external cluster's
 * endpoint is its operators' to create, so it is only looked up.
 */
export async function provideNexusEndpoint(connection: ConnectionLike, target: NexusEndpointTarget, create: boolean): Promise<string> {
  const where = `namespace ${target.namespace}, task queue ${target.taskQueue}`;
  if (create) {
    await ensureNexusEndpoint(connection, target);
    return `endpoint ${target.name} → ${where}`;
  }
  const command = `temporal operator nexus endpoint create --name ${target.name} --target-namespace ${target.namespace} --target-task-queue ${target.taskQueue}`;
  try {
    const worker = (await findEndpoint(connection, target.name))?.spec?.target?.worker;
    if (worker?.namespace === target.namespace && worker?.taskQueue === target.taskQueue) return `endpoint ${target.name} → ${where}`;
    return `endpoint ${target.name} does not lead to this worker (${where}); an operator runs: ${command}`;
  } catch {
    return `endpoint ${target.name} (not checked on this cluster; it should lead to ${where})`;
  }
}

const NOT_FOUND = 5;

/** Registers the namespace unless it exists, and waits until the server serves it. */
export async function ensureNamespace(connection: ConnectionLike, namespace: string, timeoutMs = 60_000): Promise<void> {
  const exists = () =>
    connection.workflowService.describeNamespace({ namespace }).then(
      () => true,
      (error: { code?: number }) => {
        if (error.code === NOT_FOUND) return false;
        throw error;
      },
    );
  if (await exists()) return;
  await connection.workflowService
    .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') })
    .catch((error: { code?: number }) => {
      if (error.code !== ALREADY_EXISTS) throw error;
    });
  for (const deadline = Date.now() + timeoutMs; !(await exists()); ) {
    if (Date.now() > deadline) throw new Error(`Namespace ${namespace} was registered but is not served after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
