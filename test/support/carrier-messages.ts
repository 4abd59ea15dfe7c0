import type { Carrier } from '../../src/carriers/types';
import { expectProblem, waitForStatus as waitForMessageStatus } from './helpers';
import type { PostedWebhook } from './fake-carrier';
import { startTestStack, type TestStack } from './stack';

/** Where the carrier end-to-end suites' carriers post: the public URL, which their fake forwards to the test API. */
export const PUBLIC_BASE_URL = 'https://crm.example.test';

/**
 * A carrier end-to-end suite's stack with `carrier` as its provider, the fake's callbacks routed to it, and
 * alice's token and her client `c-1` (phone `phone`).
 */
export async function startCarrierStack(
  fake: { route(publicOrigin: string, actualOrigin: string): void },
  env: Record<string, string>,
  carrier: Carrier,
  phone: string,
): Promise<{ stack: TestStack; token: string }> {
  const stack = await startTestStack({ env, carrier });
  // The API listens on a test port; the carrier is given the public URL, which a proxy forwards to it.
  fake.route(PUBLIC_BASE_URL, stack.baseUrl);
  const token = stack.token('alice');
  await stack.api('POST', '/clients', { token, body: { _id: 'c-1', name: 'Ada', phone } });
  return { stack, token };
}

/** A webhook the API refused as forged: 403 Invalid signature, as problem details. */
export function expectInvalidSignature(res: PostedWebhook): void {
  expectProblem({ status: res.status, body: JSON.parse(res.body), headers: new Headers({ 'content-type': 'application/problem+json' }) }, 403, 'Invalid signature');
}

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
  /** The opt-outs of `phone` recorded for `sender`: other suites share the database and the caller, so only the suite's own sender is looked at. */
  const optOutsFor = async (phone: string, sender: string): Promise<any[]> => {
    const { stack, token } = context();
    const res = await stack.api('GET', `/opt-outs?phone=${encodeURIComponent(phone)}`, { token });
    return res.body.opt_outs.filter((record: { sender: string }) => record.sender === sender);
  };
  /** A client `c-replies` (phone `phone`) with agent `ag-owner` assigned to it, and a message sent to it. */
  const assignedClient = async (phone: string) => {
    const { stack, token } = context();
    await stack.api('POST', '/agents', { token, body: { _id: 'ag-owner' } });
    expect((await stack.api('POST', '/clients', { token, body: { _id: 'c-replies', name: 'Grace', phone } })).status).toBe(201);
    expect((await stack.api('POST', '/clients/c-replies/assign-agents', { token, body: { agents: [{ agent: 'ag-owner', dt_until: '2099-01-01' }] } })).status).toBe(200);
    await sent({ client: 'c-replies' });
  };
  /** The message.received events of the client `c-replies`. */
  const receivedByAssignedClient = async (): Promise<any[]> => {
    const { stack, token } = context();
    return (await stack.api('GET', '/events?type=message.received&client=c-replies&limit=100', { token })).body.events;
  };
  /** A reminder POSTed as is (the answer, whatever it is) to the recipient `body` names. */
  const postReminder = (body: Record<string, unknown>) => {
    const { stack, token } = context();
    return stack.api('POST', '/messages', { token, body: { message_type: 'text', text_message: 'Reminder: your visit is today', ...body } });
  };
  /** The message a throttled carrier took on its second attempt, to the new client `c-throttled` (phone +14155550143); `throttle` sets the carrier's one 429. */
  const sentThrottled = async (throttle: () => void) => {
    const { stack, token } = context();
    await stack.api('POST', '/clients', { token, body: { _id: 'c-throttled', name: 'Throttled', phone: '+14155550143' } });
    throttle();
    return sent({ client: 'c-throttled' });
  };
  return { getMessage, waitForStatus, accepted, sent, eventTypesOf, optOutsFor, assignedClient, receivedByAssignedClient, postReminder, sentThrottled };
}

/** A business on its own carrier account: its number registered through the operator API, and the API called in its name. */
export function ownAccounts(context: () => { stack: TestStack }, adminToken: string, carrierName: string) {
  const origin = () => context().stack.baseUrl.replace(/\/ext\/v2\/.*$/, '');
  const inBusiness = (business: string) => (method: string, path: string, options: { token: string; body?: unknown }) => context().stack.api(method, `//ext/v2/${business}${path}`, options);
  const register = (business: string, number: string, credentials: unknown) =>
    fetch(`${origin()}/admin/businesses/${business}/numbers/${encodeURIComponent(number)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ carrier: carrierName, credentials }),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  return { origin, inBusiness, register };
}
