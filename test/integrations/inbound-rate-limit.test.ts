import { hubspotSignatureV3 } from '../../src/crm';
import { connectedStack } from '../support/crm';
import { request } from '../support/http';
import { originOf, uniqueName, type TestStack } from '../support/stack';

/*
 * The CRMs' public doors are limited per business and CRM before any database work (429 with
 * Retry-After), and check requests with the connector's key kept in memory, forgotten at once when the
 * connector changes in this process.
 */

const LIMIT = 20;
let stack: TestStack;
let origin: string;
const SECRET_A = 'client-secret-of-a';

beforeAll(async () => {
  ({ stack } = await connectedStack('hubspot', {
    env: { CRM_INBOUND_RATE_LIMIT_PER_MINUTE: String(LIMIT) },
    agents: ['a1'],
    body: { agents: ['a1'], settings: { client_secret: SECRET_A, access_token: 'pat-na1-a' } },
  }));
  origin = originOf(stack);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

/** A HubSpot delivery this service acknowledges and ignores (no contact to fetch). */
const IGNORED_EVENTS = JSON.stringify([{ eventId: 1, subscriptionType: 'deal.creation', objectId: 7, occurredAt: Date.now() }]);
const hubspotDoor = (business: string) => `${origin}/integrations/hubspot/${business}/webhook`;
const post = (url: string, headers: Record<string, string> = {}, body = IGNORED_EVENTS) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const signed = (url: string, secret: string, body = IGNORED_EVENTS) => {
  const timestamp = String(Date.now());
  return { 'x-hubspot-request-timestamp': timestamp, 'x-hubspot-signature-v3': hubspotSignatureV3(secret, 'POST', url, Buffer.from(body), timestamp) };
};

test('a burst of unsigned requests to one business\'s door gets 429s with Retry-After, without a database read; a signed request to another business\'s door is unaffected', async () => {
  const other = uniqueName('biz');
  const otherSecret = 'client-secret-of-b';
  const ownerOfOther = stack.token(uniqueName('user'));
  expect((await request('POST', `${origin}/ext/v2/${other}/agents`, { token: ownerOfOther, body: { _id: 'b1' } })).status).toBe(201);
  expect((await request('PUT', `${origin}/ext/v2/${other}/integrations/hubspot`, { token: ownerOfOther, body: { agents: ['b1'], settings: { client_secret: otherSecret, access_token: 'pat-na1-b' } } })).status).toBe(201);

  const reads: string[] = [];
  const findUnique = stack.prisma.crmConnector.findUnique;
  const spy = jest.spyOn(stack.prisma.crmConnector, 'findUnique').mockImplementation(((args: never) => {
    reads.push('read');
    return findUnique.call(stack.prisma.crmConnector, args);
  }) as never);
  try {
    const answers = await Promise.all(Array.from({ length: LIMIT * 3 }, () => post(hubspotDoor(stack.business))));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(LIMIT * 2);
    const refused = answers.find((a) => a.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { detail: string }).detail).toBe(`Too many requests: at most ${LIMIT} a minute to a business's hubspot connector`);
    // One read of the connector served the 20 that were let through; the 40 refused cost none.
    expect(reads.length).toBeLessThanOrEqual(1);

    // Another business's door, and this business's other CRM doors, keep their own count.
    const url = hubspotDoor(other);
    const legit = await post(url, signed(url, otherSecret));
    expect(legit.status).toBe(200);
    expect(await legit.json()).toEqual({ received: 0, recorded: 0 });
    expect((await post(`${origin}/integrations/pipedrive/${stack.business}/webhook`)).status).toBe(401);
    // Still limited: even a signed request waits for the next minute.
    expect((await post(hubspotDoor(stack.business), signed(hubspotDoor(stack.business), SECRET_A))).status).toBe(429);
  } finally {
    spy.mockRestore();
  }
});

test('the cached key is forgotten when the connector changes here: a new client_secret signs at once, the old one no longer', async () => {
  const other = uniqueName('biz');
  const owner = stack.token(uniqueName('user'));
  expect((await request('POST', `${origin}/ext/v2/${other}/agents`, { token: owner, body: { _id: 'c1' } })).status).toBe(201);
  const putSecret = async (secret: string) =>
    (await request('PUT', `${origin}/ext/v2/${other}/integrations/hubspot`, { token: owner, body: { agents: ['c1'], settings: { client_secret: secret, access_token: 'pat-na1-c' } } })).status;
  const url = hubspotDoor(other);
  expect(await putSecret('first-secret')).toBe(201);
  expect((await post(url, signed(url, 'first-secret'))).status).toBe(200);
  expect(await putSecret('second-secret')).toBe(200);
  expect((await post(url, signed(url, 'first-secret'))).status).toBe(401);
  expect((await post(url, signed(url, 'second-secret'))).status).toBe(200);
  expect((await request('DELETE', `${origin}/ext/v2/${other}/integrations/hubspot`, { token: owner })).status).toBe(204);
  expect((await post(url, signed(url, 'second-secret'))).status).toBe(401);
});
