import { uniqueName } from './helpers';
import { startTestStack, type ApiResponse, type TestStack } from './stack';

/* Shared steps of the rotation suites: their stack, a client with agents in a rotation, and the assignments its rotation made. */

export interface RotationAssignment {
  agent: string;
  dt_until: string;
  status: string;
  rotation: boolean;
  ds_notes: string | null;
  assigned_at: string;
  ended_at: string | null;
  workflow_id: string;
}

/** A new client of the token's user and `count` new agents; returns their ids. */
export async function clientWithAgents(stack: TestStack, token: string, count: number): Promise<{ clientId: string; agents: string[] }> {
  const clientId = uniqueName('client');
  expect((await stack.api('POST', '/clients', { token, body: { _id: clientId } })).status).toBe(201);
  const agents: string[] = [];
  for (let i = 0; i < count; i++) {
    const agent = uniqueName(`agent${i + 1}`);
    expect((await stack.api('POST', '/agents', { token, body: { _id: agent } })).status).toBe(201);
    agents.push(agent);
  }
  return { clientId, agents };
}

/** The stack the rotation suites run on (periods down to a second) and a token of `user`. */
export async function startRotationStack(user: string): Promise<{ stack: TestStack; token: string }> {
  const stack = await startTestStack({ rotationMinPeriodMs: 1000 });
  return { stack, token: stack.token(user) };
}

/** A new client and `count` new agents, and the answer to the PUT of a rotation over all of them with the rest of `body`. */
export async function clientInRotation(stack: TestStack, token: string, count: number, body: Record<string, unknown>): Promise<{ clientId: string; agents: string[]; put: ApiResponse; startsAt: string }> {
  const { clientId, agents } = await clientWithAgents(stack, token, count);
  const put = await stack.api('PUT', `/clients/${clientId}/rotation`, { token, body: { agents, ...body } });
  return { clientId, agents, put, startsAt: put.body.starts_at as string };
}

/** Every assignment of the client that a rotation made, in the order of their periods. */
export async function rotationAssignments(stack: TestStack, token: string, clientId: string): Promise<RotationAssignment[]> {
  const res = await stack.api('GET', `/clients/${clientId}/agents?status=all`, { token });
  expect(res.status).toBe(200);
  return (res.body.assignments as RotationAssignment[]).filter((a) => a.rotation).sort((a, b) => Date.parse(a.dt_until) - Date.parse(b.dt_until));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const plusMs = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
