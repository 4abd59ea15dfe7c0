import { HandlerError } from 'nexus-rpc';

const MESSAGE_WORKFLOW_ID = /^message\/[^/]+\/([0-9a-f-]{36})$/i;

/**
 * The message behind a sendMessage operation token. The token is the SDK's workflow-run token (base64url
 * JSON naming the workflow id), and the message workflow's id ends with the message id.
 */
export function messageIdOfToken(token: string): { id: string; workflowId: string } {
  let workflowId: unknown;
  try {
    workflowId = (JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { wid?: unknown }).wid;
  } catch {
    // falls through to the error below
  }
  const match = typeof workflowId === 'string' ? MESSAGE_WORKFLOW_ID.exec(workflowId) : null;
  if (!match) throw new HandlerError('BAD_REQUEST', 'Not a sendMessage operation token');
  return { id: match[1], workflowId: workflowId as string };
}
