import { uniqueName } from './helpers';
import type { TestStack } from './stack';

/* Shared steps of the rotation suites: a client with agents, and the assignments its rotation made. */

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

/** Every assignment of the client that a rotation made, in the order of their periods. */
export async function rotationAssignments(stack: TestStack, token: string, clientId: string): Promise<RotationAssignment[]> {
  const res = await stack.api('GET', `/clients/${clientId}/agents?status=all`, { token });
  expect(res.status).toBe(200);
  return (res.body.assignments as RotationAssignment[]).filter((a) => a.rotation).sort((a, b) => Date.parse(a.dt_until) - Date.parse(b.dt_until));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const plusMs = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
