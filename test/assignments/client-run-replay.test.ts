import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { assignUpdate, CLIENT_WORKFLOW, type ClientClocksRead, type RecordedAssignRequests } from '../../src/domain';
import { quietTemporalRuntime, uniqueName } from '../support/helpers';

/*
 * The client's run with its local activities stubbed (no database): the start's read of every kind is slow
 * and the request's recording fast, so the two, were they in flight at once, would finish in another order
 * than they were scheduled. Local activities
 * resolve in the order they finish when a run executes and in the order they were scheduled when it
 * replays: two at once would replay in another order than they ran. The run's history must replay as it ran.
 */

let connection: NativeConnection;
let client: Client;
beforeAll(async () => {
  quietTemporalRuntime();
  connection = await NativeConnection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  client = new Client({ connection: await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! }) });
});
afterAll(async () => {
  await connection?.close();
  await client?.connection.close();
});

const bundle = { codePath: process.env.TEST_WORKFLOW_BUNDLE! };
const idle: ClientClocksRead = { assignments: [], rotations: [], firstResponses: { clocks: [], reassigned: false } };

test('a request recorded while the run reads its clocks: the history replays as it ran', async () => {
  const taskQueue = uniqueName('tq-replay');
  const recorded: RecordedAssignRequests = { outcomes: [{ ok: true, assignments: [] }], clocks: [] };
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: bundle,
    activities: {
      readClientClocks: async () => (await sleep(400), idle),
      loadClientClocks: async () => [],
      recordAssignmentRequests: async () => recorded,
      expireDueAssignments: async () => [],
      stepFirstResponses: async () => ({ clocks: [], reassigned: false }),
      advanceClientRotations: async () => [],
    },
  });
  const workflowId = uniqueName('client/replay');
  await worker.runUntil(async () => {
    const startWorkflowOperation = new WithStartWorkflowOperation(CLIENT_WORKFLOW, {
      workflowId,
      taskQueue,
      args: [{ business: 'b', clientId: 'c', clientPk: '00000000-0000-0000-0000-000000000000' }],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    await client.workflow.executeUpdateWithStart(assignUpdate, { args: [{ requestKey: 'r1', agents: [] }], startWorkflowOperation });
    expect(await client.workflow.getHandle(workflowId).result()).toEqual({ outcome: 'idle' });
  });
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  await expect(Worker.runReplayHistory({ workflowBundle: bundle }, history, workflowId)).resolves.toBeUndefined();
});
