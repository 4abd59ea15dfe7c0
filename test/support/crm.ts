import type { IncomingMessage } from 'node:http';
import type { ApiResponse } from './http';
import { startTestStack, uniqueName, type TestStack } from './stack';

/** A request's whole body as text: the CRM fakes read the JSON or SOAP their callers send. */
export const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

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
