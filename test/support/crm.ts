import type { ApiResponse } from './http';
import { startTestStack, uniqueName, type TestStack } from './stack';

export interface ConnectedStack {
  stack: TestStack;
  token: string;
  /** The inbound URL the connector's PUT answered, to paste into the CRM. */
  inboundUrl: string;
  put: ApiResponse;
}

/**
 * A test stack with the CRM's API base pointed at its fake (`env`), the caller's agents, whatever
 * `before` sets up (teams, policies), and the connector put as `body` says.
 */
export async function connectedStack(crm: 'hubspot' | 'salesforce' | 'pipedrive', options: { env: Record<string, string>; agents: string[]; body: Record<string, unknown>; before?: (stack: TestStack, token: string) => Promise<void> }): Promise<ConnectedStack> {
  const stack = await startTestStack({ env: options.env });
  const token = stack.token(uniqueName('user'));
  for (const _id of options.agents) expect((await stack.api('POST', '/agents', { token, body: { _id } })).status).toBe(201);
  await options.before?.(stack, token);
  const put = await stack.api('PUT', `/integrations/${crm}`, { token, body: options.body });
  expect(put.status).toBe(201);
  return { stack, token, inboundUrl: put.body.inbound_url, put };
}
