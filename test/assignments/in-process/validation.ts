import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { RequestFailureType } from '../../../src/domain';
import { assignPastTheApi } from '../../support/client-run';
import { startStackFor, type TestStack } from '../../support/stack';
import { expectProblem } from '../../support/helpers';

let stack: TestStack;
let token: string;
const DEFAULT_DT_UNTIL = '2143-06-23T00:00:00.000Z';

beforeAll(async () => {
  ({ stack, token } = await startStackFor('alice'));
  await stack.api('POST', '/clients', { token, body: { _id: 'c1', name: 'Client one' } });
  for (const _id of ['a1', 'a2', 'a3']) await stack.api('POST', '/agents', { token, body: { _id } });
});
afterAll(() => stack.stop());

const assign = (body: unknown, client = 'c1') => stack.api('POST', `/clients/${client}/assign-agents`, { token, body });
const assignRaw = (rawBody: string, contentType = 'application/json') =>
  stack.api('POST', '/clients/c1/assign-agents', { token, rawBody, headers: { 'content-type': contentType } });

const MISSING_AGENTS = 'Missing or invalid agents array';
const MISSING_AGENT_ID = 'Invalid agent data: missing agent ID';
const invalidDate = (agent: string) => `Invalid dt_until for agent ${agent}: must be an ISO 8601 date or date-time`;
const pastDate = (agent: string) => `Invalid dt_until for agent ${agent}: must be in the future`;

describe(`400 ${MISSING_AGENTS}`, () => {
  test.each([
    ['agents is missing', { ds_notes: 'x' }],
    ['agents is null', { agents: null }],
    ['agents is a string', { agents: 'a1' }],
    ['agents is a number', { agents: 1 }],
    ['agents is an object', { agents: { agent: 'a1' } }],
    ['agents is empty', { agents: [] }],
    ['the body is an empty object', {}],
    ['the body is an array', [{ agent: 'a1' }]],
    ['the body is null', null],
    ['the body is a JSON string', 'a1'],
    ['the body is a JSON number', 7],
  ])('when %s', async (_name, body) => {
    expectProblem(await assign(body), 400, MISSING_AGENTS);
  });

  test('when there is no body at all', async () => {
    expectProblem(await stack.api('POST', '/clients/c1/assign-agents', { token }), 400, MISSING_AGENTS);
  });
});

describe(`400 ${MISSING_AGENT_ID}`, () => {
  test.each([
    ['an element without agent', [{ dt_until: '2099-01-01' }]],
    ['agent is an empty string', [{ agent: '' }]],
    ['agent is a number', [{ agent: 42 }]],
    ['agent is null', [{ agent: null }]],
    ['an element that is a string', ['a1']],
    ['an element that is null', [null]],
    ['a bad element after a good one', [{ agent: 'a1' }, { agent: '' }]],
  ])('for %s', async (_name, agents) => {
    expectProblem(await assign({ agents }), 400, MISSING_AGENT_ID);
  });
});

describe('dt_until', () => {
  test.each([
    ['a word', 'tomorrow'],
    ['month 13', '2030-13-01'],
    ['February 30', '2030-02-30'],
    ['a date-time on February 30', '2030-02-30T10:00:00Z'],
    ['hour 24', '2030-01-01T24:00:00Z'],
    ['an offset of 25 hours', '2099-01-01T10:00:00+25:00'],
    ['a space instead of T', '2099-01-01 10:00:00Z'],
    ['a human-readable date', 'June 23, 2143'],
    ['a number', 20300101],
    ['an empty string', ''],
    ['an object', { date: '2030-01-01' }],
    ['an offset that pushes it past the year 9999', '9999-12-31T23:59:59-14:00'],
    ['a year past 9999', '10000-01-01'],
  ])('that is not an ISO 8601 date is 400 naming the agent: %s', async (_name, dt_until) => {
    expectProblem(await assign({ agents: [{ agent: 'a1' }, { agent: 'a2', dt_until }] }), 400, invalidDate('a2'));
  });

  test.each([
    ['a past date', '2000-01-01'],
    ['a past date-time', '2020-06-01T12:00:00Z'],
    ['a minute ago', () => new Date(Date.now() - 60_000).toISOString()],
  ])('that is not in the future is 400 naming the agent: %s', async (_name, value) => {
    const dt_until = typeof value === 'function' ? value() : value;
    expectProblem(await assign({ agents: [{ agent: 'a3', dt_until }] }), 400, pastDate('a3'));
  });

  test('the first bad date in request order is the one named', async () => {
    const res = await assign({ agents: [{ agent: 'a1' }, { agent: 'a3', dt_until: 'soon' }, { agent: 'a2', dt_until: 'later' }] });
    expectProblem(res, 400, invalidDate('a3'));
  });

  test('a date without time means 00:00:00 UTC of that day', async () => {
    const res = await assign({ agents: [{ agent: 'a1', dt_until: '2099-05-01' }] });
    expect(res.status).toBe(200);
    expect(res.body.assignments[0].dt_until).toBe('2099-05-01T00:00:00.000Z');
  });

  test.each([
    ['+02:00', '2099-05-01T10:00:00+02:00', '2099-05-01T08:00:00.000Z'],
    ['-05:30', '2099-05-01T22:15:30-05:30', '2099-05-02T03:45:30.000Z'],
    ['+0100 without colon', '2099-05-01T00:30:00+0100', '2099-04-30T23:30:00.000Z'],
    ['+03 in hours only', '2099-05-01T03:00+03', '2099-05-01T00:00:00.000Z'],
    ['Z with milliseconds', '2099-05-01T10:00:00.250Z', '2099-05-01T10:00:00.250Z'],
  ])('a date-time with offset %s is converted to UTC', async (_name, dt_until, expected) => {
    const res = await assign({ agents: [{ agent: 'a2', dt_until }] });
    expect(res.status).toBe(200);
    expect(res.body.assignments[0].dt_until).toBe(expected);
  });

  test('a date-time without offset is read as UTC', async () => {
    const res = await assign({ agents: [{ agent: 'a2', dt_until: '2099-05-01T10:00' }] });
    expect(res.status).toBe(200);
    expect(res.body.assignments[0].dt_until).toBe('2099-05-01T10:00:00.000Z');
  });

  test('omitted or null defaults to 2143-06-23', async () => {
    const res = await assign({ agents: [{ agent: 'a1' }, { agent: 'a2', dt_until: null }] });
    expect(res.status).toBe(200);
    expect(res.body.assignments.map((a: { dt_until: string }) => a.dt_until)).toEqual([DEFAULT_DT_UNTIL, DEFAULT_DT_UNTIL]);
    const listed = await stack.api('GET', '/clients/c1/agents', { token });
    const stored = listed.body.assignments.filter((a: { agent: string }) => a.agent === 'a1' || a.agent === 'a2');
    expect(stored.map((a: { dt_until: string }) => a.dt_until)).toEqual([DEFAULT_DT_UNTIL, DEFAULT_DT_UNTIL]);
  });
});

test('a date the database cannot hold that reaches the client\'s run fails the request at once as refused data, and nothing is assigned', async () => {
  const error = await assignPastTheApi(stack, 'alice', 'c1', [{ agentId: 'a3', dtUntil: new Date(Date.UTC(10000, 0, 1)).toISOString() }]);
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  let failure: unknown = error;
  while (failure && !(failure instanceof ApplicationFailure)) failure = (failure as Error).cause;
  expect((failure as ApplicationFailure).type).toBe(RequestFailureType.InvalidData);
  expect((failure as ApplicationFailure).message).toContain('SQLSTATE 22008');
  const listed = await stack.api('GET', '/clients/c1/agents?status=all', { token });
  expect(listed.body.assignments.map((a: { agent: string }) => a.agent)).not.toContain('a3');
});

describe('limits', () => {
  test('more than 100 agents is 400', async () => {
    const agents = Array.from({ length: 101 }, (_, i) => ({ agent: `agent-${i}` }));
    expectProblem(await assign({ agents }), 400, 'Too many agents: at most 100 per request');
  });

  test('exactly 100 agents passes the limit (and then fails on the first unknown agent)', async () => {
    const agents = Array.from({ length: 100 }, (_, i) => ({ agent: i === 0 ? 'a1' : `ghost-${i}` }));
    expectProblem(await assign({ agents }), 400, 'Agent ghost-1 not found or not authorized');
  });

  test('the same agent twice is 400', async () => {
    const res = await assign({ agents: [{ agent: 'a1' }, { agent: 'a2' }, { agent: 'a1', dt_until: '2099-01-01' }] });
    expectProblem(res, 400, 'Duplicate agent a1 in agents array');
  });

  test.each([
    ['a number', 42],
    ['an object', { text: 'hi' }],
    ['an array', ['hi']],
    ['longer than 2000 characters', 'n'.repeat(2001)],
  ])('ds_notes that is %s is 400', async (_name, ds_notes) => {
    expectProblem(await assign({ agents: [{ agent: 'a1' }], ds_notes }), 400, 'Invalid ds_notes: must be a string of at most 2000 characters');
  });
});

describe('malformed and oversized bodies are 4xx problems, never 500', () => {
  test('malformed JSON is 400', async () => {
    expectProblem(await assignRaw('{"agents": [{"agent": "a1"'), 400, 'Malformed JSON body');
  });

  test('a body declared as a form or as text is 415, even when it holds JSON', async () => {
    expectProblem(await assignRaw('agents=a1', 'application/x-www-form-urlencoded'), 415, 'Content-Type must be application/json');
    expectProblem(await assignRaw('{"agents":[{"agent":"a1"}]}', 'text/plain'), 415, 'Content-Type must be application/json');
  });

  test('a JSON-typed body that is not JSON is 400', async () => {
    expectProblem(await assignRaw('agents=a1'), 400, 'Malformed JSON body');
  });

  test('a body over 100 kB is 413', async () => {
    const body = JSON.stringify({ agents: [{ agent: 'a1' }], ds_notes: 'x'.repeat(101 * 1024) });
    expectProblem(await assignRaw(body), 413, 'Request body is larger than 100 kB');
  });
});

describe('the order of checks follows the contract', () => {
  test('a missing agent id wins over an invalid dt_until earlier in the array', async () => {
    const res = await assign({ agents: [{ agent: 'a1', dt_until: 'tomorrow' }, { dt_until: '2099-01-01' }] });
    expectProblem(res, 400, MISSING_AGENT_ID);
  });

  test('an invalid agents array wins over everything else', async () => {
    expectProblem(await assign({ agents: {}, ds_notes: 42 }, 'no-such-client'), 400, MISSING_AGENTS);
  });

  test('an invalid dt_until wins over a duplicate agent', async () => {
    const res = await assign({ agents: [{ agent: 'a1' }, { agent: 'a1' }, { agent: 'a2', dt_until: 'tomorrow' }] });
    expectProblem(res, 400, invalidDate('a2'));
  });

  test('an invalid dt_until for a missing client is 400, not 404', async () => {
    expectProblem(await assign({ agents: [{ agent: 'a1', dt_until: 'tomorrow' }] }, 'no-such-client'), 400, invalidDate('a1'));
  });

  test('too many agents or a duplicate for a missing client is 400, not 404', async () => {
    const many = Array.from({ length: 101 }, (_, i) => ({ agent: `agent-${i}` }));
    expect((await assign({ agents: many }, 'no-such-client')).status).toBe(400);
    expectProblem(await assign({ agents: [{ agent: 'x' }, { agent: 'x' }] }, 'no-such-client'), 400, 'Duplicate agent x in agents array');
  });

  test('a missing client with an unknown agent is 404', async () => {
    const res = await assign({ agents: [{ agent: 'ghost' }] }, 'no-such-client');
    expectProblem(res, 404, 'Client not found');
  });
});

describe('success', () => {
  test('the 200 body is exactly { client, ds_notes, assignments: [{ agent, dt_until, status, workflow_id }] }', async () => {
    const res = await assign({ agents: [{ agent: 'a1', dt_until: '2099-01-01T12:00:00Z' }, { agent: 'a3' }], ds_notes: 'Team for the launch' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      client: 'c1',
      ds_notes: 'Team for the launch',
      assignments: [
        { agent: 'a1', dt_until: '2099-01-01T12:00:00.000Z', status: 'active', workflow_id: expect.stringMatching(`^client/${stack.business}/c1/`) },
        { agent: 'a3', dt_until: DEFAULT_DT_UNTIL, status: 'active', workflow_id: expect.stringMatching(`^client/${stack.business}/c1/`) },
      ],
    });
  });

  test('ds_notes omitted is null in the response', async () => {
    const res = await assign({ agents: [{ agent: 'a2' }] });
    expect(res.status).toBe(200);
    expect(res.body.ds_notes).toBeNull();
    expect(Object.keys(res.body).sort()).toEqual(['assignments', 'client', 'ds_notes']);
  });

  test('an unknown field in the body or in an element is a 400 naming it, after the contract\'s checks 1-7, and assigns nothing', async () => {
    await stack.api('POST', '/clients', { token, body: { _id: 'c-unknown' } });
    const listed = async () => (await stack.api('GET', '/clients/c-unknown/agents', { token })).body.assignments;
    expectProblem(await assign({ agents: [{ agent: 'a2', role: 'lead' }] }, 'c-unknown'), 400, 'Unknown field: agents[0].role');
    expectProblem(await assign({ agents: [{ agent: 'a2' }], priority: 'high' }, 'c-unknown'), 400, 'Unknown field: priority');
    expect(await listed()).toEqual([]);
    // The contract's own checks answer first: a missing agent id (3), the client (6), an agent not the caller's (7).
    expectProblem(await assign({ agents: [{ role: 'lead' }], priority: 'high' }, 'c-unknown'), 400, MISSING_AGENT_ID);
    expectProblem(await assign({ agents: [{ agent: 'a2' }], priority: 'high' }, 'nobody'), 404);
    expectProblem(await assign({ agents: [{ agent: 'a2' }, { agent: 'ghost' }], priority: 'high' }, 'c-unknown'), 400, 'Agent ghost not found or not authorized');
    expect(await listed()).toEqual([]);
  });
});
