import type { Client as TemporalClient } from '@temporalio/client';
import type { Prisma } from '../../src/db/prisma';
import { afterAssignmentsEnded, afterAssignmentStarted, type EndCause } from '../../src/use-cases/assignments/after-change';

/*
 * What follows an assignment's start or end, by cause: Temporal is stood in for by a client that records what
 * it is asked (signal-with-start of a workflow type, a signal to a run by id), so only the rule is judged.
 */

const calls: string[] = [];
const temporal = {
  workflow: {
    signalWithStart: async (type: string, options: { signal: { name: string }; signalArgs: unknown[] }) => {
      calls.push(`${type} ${options.signal.name}${options.signalArgs.length > 0 ? ` ${JSON.stringify(options.signalArgs)}` : ''}`);
    },
    getHandle: (workflowId: string) => ({
      signal: async (signal: { name: string }) => void calls.push(`${workflowId} ${signal.name}`),
    }),
  },
} as unknown as TemporalClient;

const waiting = [{ pk: 'p1', id: 'sales', business: 'b' }];
const prisma = { routingDecision: { findMany: async () => waiting.map((policy) => ({ policy })) } } as unknown as Prisma;
const deps = { prisma, temporal, taskQueue: 'q' };
const owner = { business: 'b', ownerId: 'u' };
const ended = [{ business: 'b', clientId: 'hubspot:1', workflowId: 'w1' }];
const expiry = { business: 'b', clientId: 'c1', agentId: 'a1', clientPk: 'cp', agentPk: 'ap', dtUntil: '2143-06-23T00:00:00.000Z' };

beforeEach(() => void calls.splice(0));

test('a start sets its expiry clock going, and a routed decision its first-response clock: one wake of the client\'s run for both', async () => {
  await afterAssignmentStarted(deps, { workflowId: 'w1', expiry });
  await afterAssignmentStarted(deps, { workflowId: 'w2', expiry, firstResponse: { business: 'b', decisionId: 'd1' } });
  expect(calls).toEqual(['clientOwnership clocksChanged [["assignments"]]', 'clientOwnership clocksChanged [["assignments","firstResponses"]]']);
});

const wakeClock = 'w1 assignmentChanged';
const crmLead = 'processCrmLead crmEventRecorded';
const queue = 'routingQueue capacityChanged';

test.each<[EndCause, string[]]>([
  ['api', [wakeClock, crmLead, queue]],
  ['routing', [wakeClock, crmLead, queue]],
  ['expired', [crmLead, queue]],
  ['operator', [crmLead, queue]],
  ['agent_deleted', [wakeClock, crmLead]],
  ['client_deleted', [wakeClock, queue]],
])('an end by %s: %j', async (cause, expected) => {
  await afterAssignmentsEnded(deps, owner, ended, cause);
  expect(calls).toEqual(expected);
});

test('nothing ended, nothing follows', async () => {
  await afterAssignmentsEnded(deps, owner, [], 'api');
  expect(calls).toEqual([]);
});
