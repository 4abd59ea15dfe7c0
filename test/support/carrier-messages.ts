import { waitForStatus as waitForMessageStatus } from './helpers';
import type { TestStack } from './stack';

/**
 * What the carrier end-to-end suites do with messages through the API, as one caller: read one, wait for
 * a status, send (to the suite's client `c-1` unless told otherwise), and list a message's event types.
 * `context()` is read at each call, since the stack and the token come from the suite's beforeAll.
 */
export function carrierMessages(context: () => { stack: TestStack; token: string }) {
  const getMessage = async (id: string) => {
    const { stack, token } = context();
    return (await stack.api('GET', `/messages/${id}`, { token })).body;
  };
  const waitForStatus = (id: string, status: string) => {
    const { stack, token } = context();
    return waitForMessageStatus(stack.api, token, id, status);
  };
  const accepted = async (body: Record<string, unknown> = { client: 'c-1' }): Promise<string> => {
    const { stack, token } = context();
    const res = await stack.api('POST', '/messages', { token, body: { message_type: 'text', text_message: 'Your order shipped', ...body } });
    expect(res.status).toBe(202);
    return res.body._id;
  };
  /** Accepted, then handed to the carrier. */
  const sent = async (body?: Record<string, unknown>): Promise<any> => waitForStatus(await accepted(body), 'sent');
  /** The message's events in the feed, by type, in commit order. */
  const eventTypesOf = async (id: string): Promise<string[]> => {
    const { stack, token } = context();
    const res = await stack.api('GET', '/events?type=message.*&limit=100', { token });
    return res.body.events.filter((e: any) => e.data._id === id).map((e: any) => e.type);
  };
  return { getMessage, waitForStatus, accepted, sent, eventTypesOf };
}
