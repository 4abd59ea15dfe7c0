import type { Client as TemporalClient } from '@temporalio/client';
import type { Prisma } from '../../src/db/prisma';
import { afterAssignmentsEnded, afterAssignmentStarted, type EndCause } from '../../src/use-cases/assignments/after-change';

/* What follows an assignment's start or end, by cause: the starters are stood in for, so only the rule is judged. */

const mockCalls: string[] = [];
jest.mock('../../src/starters/assignment-expiry-workflow', () => ({
  startOrWakeExpiry: async (_t: unknown, _q: string, workflowId: string) => void mockCalls.push(`clock ${workflowId}`),
  wakeExpiry: async (_t: unknown, workflowId: string) => void mockCalls.push(`wake clock ${workflowId}`),
}));
jest.mock('../../src/starters/first-response-workflow', () => ({
  startFirstResponseClock: async (_t: unknown, _q: string, client: { clientId: string }) => void mockCalls.push(`clock and first response of ${client.clientId}`),
}));
jest.mock('../../src/starters/process-crm-lead-workflow', () => ({
  wakeCrmLeadOfClient: async (_t: unknown, _q: string, _business: string, clientId: string) => void mockCalls.push(`crm lead ${clientId}`),
  wakeQueuedCrmLead: async (_t: unknown, _business: string, clientId: string) => void mockCalls.push(`queued crm lead ${clientId}`),
}));
jest.mock('../../src/starters/routing-queue-workflow', () => ({
  wakeRoutingQueue: async (_t: unknown, _q: string, ref: { policyId: string }) => void mockCalls.push(`queue ${ref.policyId}`),
}));

const waiting = [{ pk: 'p1', id: 'sales', business: 'b' }];
const prisma = { routingDecision: { findMany: async () => waiting.map((policy) => ({ policy })) } } as unknown as Prisma;
const deps = { prisma, temporal: {} as TemporalClient, taskQueue: 'q' };
const owner = { business: 'b', ownerId: 'u' };
const ended = [{ business: 'b', clientId: 'hubspot:1', workflowId: 'w1' }];
const expiry = { business: 'b', clientId: 'c1', agentId: 'a1', clientPk: 'cp', agentPk: 'ap', dtUntil: '2143-06-23T00:00:00.000Z' };

beforeEach(() => void mockCalls.splice(0));

test('a start sets its expiry clock going, and a routed decision its first-response clock: one wake of the client\'s run for both', async () => {
  await afterAssignmentStarted(deps, { workflowId: 'w1', expiry });
  await afterAssignmentStarted(deps, { workflowId: 'w2', expiry, firstResponse: { business: 'b', decisionId: 'd1' } });
  expect(mockCalls).toEqual(['clock w1', 'clock and first response of c1']);
});

test.each<[EndCause, string[]]>([
  ['api', ['wake clock w1', 'crm lead hubspot:1', 'queue sales']],
  ['routing', ['wake clock w1', 'crm lead hubspot:1', 'queue sales']],
  ['expired', ['crm lead hubspot:1', 'queue sales']],
  ['operator', ['crm lead hubspot:1', 'queue sales']],
  ['agent_deleted', ['wake clock w1', 'crm lead hubspot:1']],
  ['client_deleted', ['wake clock w1', 'queue sales']],
])('an end by %s: %j', async (cause, expected) => {
  await afterAssignmentsEnded(deps, owner, ended, cause);
  expect(mockCalls).toEqual(expected);
});

test('nothing ended, nothing follows', async () => {
  await afterAssignmentsEnded(deps, owner, [], 'api');
  expect(mockCalls).toEqual([]);
});
