import { expectProblem } from '../../support/helpers';
import { clientWithAgents } from '../../support/rotation';
import { startTestStack, type TestStack } from '../../support/stack';

/* PUT …/rotation checks its body in assign-agents' order and words; nothing is stored when it refuses. */

let stack: TestStack;
let token: string;
let clientId: string;
let agents: string[];

beforeAll(async () => {
  stack = await startTestStack();
  token = stack.token('validation-user');
  ({ clientId, agents } = await clientWithAgents(stack, token, 2));
});
afterAll(() => stack.stop());

const put = (body: unknown, client = clientId, as = token) => stack.api('PUT', `/clients/${client}/rotation`, { token: as, body });

test.each([
  ['no agents', { period: 'P7D' }, 'Missing or invalid agents array'],
  ['agents not an array', { agents: 'a1', period: 'P7D' }, 'Missing or invalid agents array'],
  ['an empty list', { agents: [], period: 'P7D' }, 'Missing or invalid agents array'],
  ['an empty agent id', { agents: ['a1', ''], period: 'P7D' }, 'Invalid agent data: missing agent ID'],
  ['an agent that is not a string', { agents: [{ agent: 'a1' }], period: 'P7D' }, 'Invalid agent data: missing agent ID'],
  ['101 agents', { agents: Array.from({ length: 101 }, (_, i) => `a${i}`), period: 'P7D' }, 'Too many agents: at most 100 per rotation'],
  ['an agent twice', { agents: ['a1', 'a2', 'a1'], period: 'P7D' }, 'Duplicate agent a1 in agents array'],
  ['no period', { agents: ['a1'] }, 'Invalid period: must be an ISO 8601 duration such as P7D or PT8H, or a length such as 8h, 30m or 2d'],
  ['an unreadable period', { agents: ['a1'], period: 'weekly' }, 'Invalid period: must be an ISO 8601 duration such as P7D or PT8H, or a length such as 8h, 30m or 2d'],
  ['a period in months', { agents: ['a1'], period: 'P1M' }, 'Invalid period: must be a fixed length (weeks, days, hours, minutes, seconds), not months or years'],
  ['a period under a minute', { agents: ['a1'], period: '30s' }, 'Invalid period: must be between 1 minute and 10 years'],
  ['a period over ten years', { agents: ['a1'], period: 'P3654D' }, 'Invalid period: must be between 1 minute and 10 years'],
  ['an unreadable starts_at', { agents: ['a1'], period: '8h', starts_at: 'monday' }, 'Invalid starts_at: must be an ISO 8601 date or date-time'],
  ['an impossible starts_at', { agents: ['a1'], period: '8h', starts_at: '2030-02-30' }, 'Invalid starts_at: must be an ISO 8601 date or date-time'],
  ['a starts_at an offset pushes past 9999', { agents: ['a1'], period: '8h', starts_at: '9999-12-31T23:59:59-14:00' }, 'Invalid starts_at: must be an ISO 8601 date or date-time'],
  ['a starts_at far away', { agents: ['a1'], period: '8h', starts_at: '2143-06-23' }, 'Invalid starts_at: must be within 10 years of now'],
  ['notes that are not a string', { agents: ['a1'], period: '8h', ds_notes: 42 }, 'Invalid ds_notes: must be a string of at most 2000 characters'],
  ['notes too long', { agents: ['a1'], period: '8h', ds_notes: 'x'.repeat(2001) }, 'Invalid ds_notes: must be a string of at most 2000 characters'],
  ['apply other than now', { agents: ['a1'], period: '8h', apply: 'later' }, 'Invalid apply: must be "now" or absent'],
])('%s is a 400 with its text', async (_name, body, detail) => {
  expectProblem(await put(body), 400, detail);
});

test('the first agent in order that is not the caller\'s is named; another user\'s agent is the same as a missing one', async () => {
  const bob = stack.token('bob');
  expect((await stack.api('POST', '/agents', { token: bob, body: { _id: 'bobs-agent' } })).status).toBe(201);
  expectProblem(await put({ agents: [agents[0], 'nobody', 'bobs-agent'], period: '8h' }), 400, 'Agent nobody not found or not authorized');
  expectProblem(await put({ agents: ['bobs-agent', agents[0]], period: '8h' }), 400, 'Agent bobs-agent not found or not authorized');
  // In another business the caller's own agents do not exist either.
  const elsewhere = await stack.api('PUT', `//ext/v2/${stack.business}-other/clients/${clientId}/rotation`, { token, body: { agents, period: '8h' } });
  expectProblem(elsewhere, 404, 'Client not found');
});

test('the client must be the caller\'s: 404 for a missing one, another user\'s, or an impossible id', async () => {
  expectProblem(await put({ agents, period: '8h' }, 'no-such-client'), 404, 'Client not found');
  expectProblem(await put({ agents, period: '8h' }, clientId, stack.token('mallory')), 404, 'Client not found');
  expectProblem(await put({ agents, period: '8h' }, 'x'.repeat(129)), 404, 'Client not found');
  // The shape is checked before the client, as in assign-agents.
  expectProblem(await put({ period: '8h' }, 'no-such-client'), 400, 'Missing or invalid agents array');
});

test('a refused request stores nothing; GET and DELETE of a client without a rotation are 404s', async () => {
  const client = await stack.prisma.client.findFirstOrThrow({ where: { business: stack.business, id: clientId } });
  expect(await stack.prisma.rotation.count({ where: { clientPk: client.pk } })).toBe(0);
  expectProblem(await stack.api('GET', `/clients/${clientId}/rotation`, { token }), 404, 'No rotation on this client');
  expectProblem(await stack.api('DELETE', `/clients/${clientId}/rotation`, { token }), 404, 'No active rotation on this client');
  expectProblem(await stack.api('GET', '/clients/no-such-client/rotation', { token }), 404, 'Client not found');
  expectProblem(await stack.api('DELETE', '/clients/no-such-client/rotation', { token }), 404, 'Client not found');
  expectProblem(await stack.api('GET', `/clients/${clientId}/rotation`, { token: stack.token('mallory') }), 404, 'Client not found');
  expect((await stack.api('GET', `/clients/${clientId}/rotation`)).status).toBe(401);
});

test('valid forms: a period in seconds, weeks or hours and minutes, a date-only starts_at, apply null; the answer is 201 then 200', async () => {
  const { clientId: other, agents: two } = await clientWithAgents(stack, token, 2);
  const first = await put({ agents: two, period: 'P1W', starts_at: '2030-01-07', ds_notes: null, apply: null }, other);
  expect(first.status).toBe(201);
  expect(first.body).toMatchObject({ period: 'P1W', period_ms: 7 * 86_400_000, starts_at: '2030-01-07T00:00:00.000Z', current: null, next_change_at: '2030-01-07T00:00:00.000Z' });
  expect(first.body.next).toEqual({ agent: two[0], position: 1, of: 2, from: '2030-01-07T00:00:00.000Z' });
  const second = await put({ agents: two, period: '1h30m' }, other);
  expect(second.status).toBe(200);
  expect(second.body).toMatchObject({ period: '1h30m', period_ms: 90 * 60_000, version: 2 });
  expect((await put({ agents: two, period: 3600 }, other)).body).toMatchObject({ period: '3600', period_ms: 3_600_000 });
  await stack.api('DELETE', `/clients/${other}/rotation`, { token });
});
