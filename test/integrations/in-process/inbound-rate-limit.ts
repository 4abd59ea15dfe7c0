import { hubspotSignatureV3 } from '../../../src/crm';
import { connectedStack } from '../../support/crm';
import { request } from '../../support/http';
import { originOf, uniqueName, type TestStack } from '../../support/stack';

/*
 * The CRMs' public doors: every request takes a share of its source address's budget before any
 * database work, and a request whose signature or secret fails keeps it (429 with Retry-After beyond);
 * a signed delivery gives it back, so a flood of forged requests never stops a genuine one. They check
 * requests with the connector's key kept in memory, forgotten at once when the connector changes here.
 */

const UNVERIFIED_PER_SOURCE = 20;
const UNVERIFIED_TOTAL = 50;
const ACCEPTED_PER_CONNECTOR = 30;
let stack: TestStack;
let origin: string;
const SECRET_A = 'client-secret-of-a';

beforeAll(async () => {
  ({ stack } = await connectedStack('hubspot', {
    env: {},
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
const hubspotDoor = (business: string, at = origin) => `${at}/integrations/hubspot/${business}/webhook`;

/** An API of its own on the suite's stack, so each test starts with whole budgets; X-Forwarded-For names a request's source, as behind a load balancer. */
async function doorsApi(): Promise<string> {
  const api = await stack.startApi({
    trustProxy: true,
    publicDoorLimits: { perSource: 6000, failedPerSource: UNVERIFIED_PER_SOURCE, failedTotal: UNVERIFIED_TOTAL },
    crmInboundRateLimitPerMinute: ACCEPTED_PER_CONNECTOR,
  });
  return originOf(api);
}
const post = (url: string, headers: Record<string, string> = {}, body = IGNORED_EVENTS) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const from = (address: string) => ({ 'x-forwarded-for': address });
const signed = (url: string, secret: string, body = IGNORED_EVENTS) => {
  const timestamp = String(Date.now());
  return { 'x-hubspot-request-timestamp': timestamp, 'x-hubspot-signature-v3': hubspotSignatureV3(secret, 'POST', url, Buffer.from(body), timestamp) };
};
const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

/** Counts the connector reads behind the doors while `run` runs. */
async function connectorReads(run: () => Promise<void>): Promise<number> {
  let reads = 0;
  const findUnique = stack.prisma.crmConnector.findUnique;
  const spy = jest.spyOn(stack.prisma.crmConnector, 'findUnique').mockImplementation(((args: never) => (reads++, findUnique.call(stack.prisma.crmConnector, args))) as never);
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return reads;
}

test('a flood of forged requests to a business\'s door, from one address and then from many, never stops HubSpot\'s signed deliveries', async () => {
  const door = hubspotDoor(stack.business, await doorsApi());
  const hubspot = '203.0.113.10';
  // HubSpot delivered lately from its address.
  expect((await post(door, { ...signed(door, SECRET_A), ...from(hubspot) })).status).toBe(200);

  // One attacker: its first requests fail their signature, the rest are refused before any work.
  const attacker = '198.51.100.7';
  const [flood, during] = await Promise.all([
    Promise.all(Array.from({ length: 300 }, () => post(door, from(attacker)))),
    post(door, { ...signed(door, SECRET_A), ...from('203.0.113.11') }),
  ]);
  const statuses = flood.map((a) => a.status);
  expect(count(statuses, 401)).toBe(UNVERIFIED_PER_SOURCE);
  expect(count(statuses, 429)).toBe(300 - UNVERIFIED_PER_SOURCE);
  const refused = flood.find((a) => a.status === 429)!;
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(((await refused.json()) as { detail: string }).detail).toBe(`Too many requests: at most ${UNVERIFIED_PER_SOURCE} a minute from one address whose signature or secret is not (yet) accepted`);
  // A genuine delivery from HubSpot's other address, in the middle of the flood: accepted.
  expect(during.status).toBe(200);
  expect(await during.json()).toEqual({ received: 0, recorded: 0 });
  // The attacker's own signed request waits for the next minute; HubSpot's do not.
  expect((await post(door, { ...signed(door, SECRET_A), ...from(attacker) })).status).toBe(429);
  expect((await post(door, { ...signed(door, SECRET_A), ...from(hubspot) })).status).toBe(200);

  // Many attackers, a few requests each: past the total, addresses with no accepted delivery wait...
  const many = await Promise.all(Array.from({ length: 120 }, (_, i) => post(door, from(`192.0.2.${i + 1}`))));
  expect(count(many.map((a) => a.status), 429)).toBeGreaterThan(0);
  expect((await post(door, from('192.0.2.200'))).status).toBe(429);
  // ...and the address HubSpot delivered from lately is still let in.
  expect((await post(door, { ...signed(door, SECRET_A), ...from(hubspot) })).status).toBe(200);
});

test('forged requests to random business names are refused before a database read once the source\'s budget is spent', async () => {
  const at = await doorsApi();
  const attacker = '198.51.100.8';
  let statuses: number[] = [];
  const reads = await connectorReads(async () => {
    statuses = (await Promise.all(Array.from({ length: 200 }, () => post(hubspotDoor(uniqueName('nobody'), at), from(attacker))))).map((a) => a.status);
  });
  expect(count(statuses, 401)).toBe(UNVERIFIED_PER_SOURCE);
  expect(count(statuses, 429)).toBe(200 - UNVERIFIED_PER_SOURCE);
  expect(reads).toBeLessThanOrEqual(UNVERIFIED_PER_SOURCE);
});

test('a business\'s door takes at most CRM_INBOUND_RATE_LIMIT_PER_MINUTE accepted deliveries a minute; refused ones do not count', async () => {
  const other = uniqueName('biz');
  const secret = 'client-secret-of-b';
  const owner = stack.token(uniqueName('user'));
  expect((await request('POST', `${origin}/ext/v2/${other}/agents`, { token: owner, body: { _id: 'b1' } })).status).toBe(201);
  expect((await request('PUT', `${origin}/ext/v2/${other}/integrations/hubspot`, { token: owner, body: { agents: ['b1'], settings: { client_secret: secret, access_token: 'pat-na1-b' } } })).status).toBe(201);
  const url = hubspotDoor(other, await doorsApi());
  // Forged requests from many addresses, each under its own budget: none of them uses the door's allowance.
  const forged = await Promise.all(Array.from({ length: ACCEPTED_PER_CONNECTOR }, (_, i) => post(url, { ...signed(url, 'wrong-secret'), ...from(`198.51.100.${100 + i}`) })));
  expect(forged.every((a) => a.status === 401)).toBe(true);
  const sender = '203.0.113.20';
  for (let i = 0; i < ACCEPTED_PER_CONNECTOR; i++) expect((await post(url, { ...signed(url, secret), ...from(sender) })).status).toBe(200);
  const over = await post(url, { ...signed(url, secret), ...from(sender) });
  expect(over.status).toBe(429);
  expect(((await over.json()) as { detail: string }).detail).toBe(`Too many requests: at most ${ACCEPTED_PER_CONNECTOR} a minute to a business's hubspot connector`);
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
