import { crmProblemOf } from '../../../src/nexus/contract';
import { toNexusError } from '../../../src/nexus/errors';
import { fieldsOf } from '../../../src/nexus/scope';
import { startStackWithClientAndAgent, type TestStack } from '../../support/stack';

/*
 * Random input at every route, from a seeded generator so that a failure can be replayed: whatever
 * arrives, the answer is a 2xx or a 4xx problem, never a 5xx.
 */
let stack: TestStack;
let token: string;

beforeAll(async () => ({ stack, token } = await startStackWithClientAndAgent('fuzz-user')));
afterAll(() => stack.stop());

function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)];
  const strings = ['', ' ', 'a1', 'c1', 'text', '2030-01-01', '2000-01-01', 'PT5M', '-5', '1e309', '5m', '__proto__', 'constructor', '%00', '\u0000', 'ü'.repeat(300), '+14155550100', 'x'.repeat(5000), 'a\u00001', '\ud800', 'x\udc00y'];
  const value = (depth: number): unknown => {
    switch (Math.floor(next() * (depth > 2 ? 5 : 7))) {
      case 0: return null;
      case 1: return next() < 0.5;
      case 2: return pick([0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER, 30]);
      case 3: case 4: return pick(strings);
      case 5: return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
      default: return object(depth + 1);
    }
  };
  const keys = ['agents', 'agent', 'dt_until', 'ds_notes', '_id', 'name', 'phone', 'message_type', 'client', 'client_phone', 'client_name', 'text_message', 'delay', '__proto__', 'constructor'];
  const object = (depth: number): Record<string, unknown> =>
    Object.fromEntries(Array.from({ length: Math.floor(next() * 6) }, () => [pick(keys), value(depth)]));
  return { next, pick, value, object };
}

const ROUTES: [string, string][] = [
  ['POST', '/clients'],
  ['POST', '/agents'],
  ['POST', '/clients/c1/assign-agents'],
  ['POST', '/messages'],
  ['GET', '/clients/c1/agents?status=all'],
  ['DELETE', '/clients/c1/agents/a1'],
];

test('random JSON bodies never get a 5xx, and every error is a problem document', async () => {
  const gen = random(20261122);
  const failures: string[] = [];
  for (let i = 0; i < 400; i++) {
    const [method, path] = gen.pick(ROUTES);
    const body = gen.next() < 0.2 ? { agents: [gen.object(1), gen.object(1)], ...gen.object(1) } : gen.object(0);
    const res = await stack.api(method, path, { token, body: method === 'GET' ? undefined : body, validate: false });
    if (res.status >= 500) failures.push(`${method} ${path} ${JSON.stringify(body).slice(0, 300)} → ${res.status} ${JSON.stringify(res.body)}`);
    if (res.status >= 400 && !res.headers.get('content-type')?.startsWith('application/problem+json')) {
      failures.push(`${method} ${path} → ${res.status} without a problem document`);
    }
  }
  expect(failures).toEqual([]);
});

test('random bytes, content types and path segments never get a 5xx', async () => {
  const gen = random(42);
  const failures: string[] = [];
  const segments = ['c1', 'a1', '..', '%2F', '%', '%ZZ', 'x'.repeat(2000), '00000000-0000-0000-0000-000000000000', 'ü', '%00'];
  for (let i = 0; i < 200; i++) {
    const path = gen.pick([
      `/clients/${gen.pick(segments)}`,
      `/clients/${gen.pick(segments)}/assign-agents`,
      `/clients/${gen.pick(segments)}/agents`,
      `/messages/${gen.pick(segments)}`,
      `/messages/${gen.pick(segments)}/cancel`,
      `/clients/c1/agents/${gen.pick(segments)}`,
      `/messages?cursor=${gen.pick([Buffer.from(JSON.stringify(['2030-01-01T00:00:00Z', gen.pick(segments)])).toString('base64url'), gen.pick(segments)])}`,
    ]);
    const method = gen.pick(['GET', 'POST', 'DELETE', 'PUT']);
    const rawBody = method === 'GET' ? undefined : gen.pick(['{', '[]', 'null', '"x"', '\u0000\u0001', '{"agents":[{"agent":"a1","dt_until":1e999}]}', 'agents=1']);
    const contentType = gen.pick(['application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1']);
    const res = await stack.api(method, path, { token, rawBody, headers: rawBody === undefined ? {} : { 'content-type': contentType }, validate: false });
    if (res.status >= 500) failures.push(`${method} ${path.slice(0, 80)} ${contentType} ${JSON.stringify(rawBody)} → ${res.status} ${JSON.stringify(res.body)}`);
  }
  expect(failures).toEqual([]);
});

test('a NUL or half a surrogate pair in any string field of any body is a 400 naming the field, and nothing is stored', async () => {
  const bodies: [string, Record<string, unknown>][] = [
    ['/clients', { _id: 'c-bad', name: 'Ann', phone: '+14155550101' }],
    ['/agents', { _id: 'a-bad', name: 'Bob' }],
    ['/clients/c1/assign-agents', { agents: [{ agent: 'a1', dt_until: '2030-01-01' }], ds_notes: 'note' }],
    ['/messages', { message_type: 'text', client: 'c1', client_name: 'Ann', text_message: 'Hi', delay: '5m' }],
    ['/messages', { message_type: 'text', client_phone: '+14155550101', text_message: 'Hi' }],
  ];
  const failures: string[] = [];
  const poisonEach = (value: unknown, replace: (v: unknown) => void, path: string[], cases: [string, () => void, () => void][]) => {
    if (typeof value === 'string') {
      for (const bad of ['\u0000', '\ud800']) cases.push([path.join('.'), () => replace(value + bad), () => replace(value)]);
    } else if (value && typeof value === 'object') {
      for (const key of Object.keys(value)) poisonEach((value as any)[key], (v) => ((value as any)[key] = v), [...path, key], cases);
    }
  };
  for (const [path, body] of bodies) {
    const cases: [string, () => void, () => void][] = [];
    poisonEach(body, () => undefined, [], cases);
    for (const [field, poison, restore] of cases) {
      poison();
      const res = await stack.api('POST', path, { token, body, validate: false });
      restore();
      const expected = `Invalid ${field}: must not contain NUL characters or unpaired surrogates`;
      if (res.status !== 400 || res.body.detail !== expected) failures.push(`POST ${path} ${field} → ${res.status} ${res.body.detail}`);
    }
  }
  expect(failures).toEqual([]);
  expect(await stack.prisma.client.count({ where: { business: stack.business, id: 'c-bad' } })).toBe(0);
  expect(await stack.prisma.agent.count({ where: { business: stack.business, id: 'a-bad' } })).toBe(0);
  expect(await stack.prisma.message.count({ where: { business: stack.business, phone: '+14155550101' } })).toBe(0);
});

test('a body nested thousands of levels deep is a 400 on every route that takes a body, never a 500', async () => {
  // About 3,750 levels in 7.5 kB: well under the size limit, far beyond any body the API reads.
  const deep = '['.repeat(3750) + ']'.repeat(3750);
  const deepObject = '{"agents":'.repeat(700) + '1' + '}'.repeat(700);
  const routes: [string, string][] = [
    ['POST', '/clients'],
    ['POST', '/agents'],
    ['POST', '/clients/c1/assign-agents'],
    ['POST', '/messages'],
    ['POST', '/messages/m-unknown/cancel'],
    ['PUT', '/clients/c1/rotation'],
    ['POST', '/webhooks'],
  ];
  const failures: string[] = [];
  for (const [method, path] of routes) {
    for (const rawBody of [deep, deepObject]) {
      const res = await stack.api(method, path, { token, rawBody, headers: { 'content-type': 'application/json' }, validate: false });
      if (res.status !== 400 || res.body.detail !== 'Malformed JSON body') failures.push(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
  expect(failures).toEqual([]);
});

test('a body nested as deep as the limit allows is read as usual', async () => {
  let nested: unknown = 'deep';
  for (let i = 0; i < 30; i++) nested = { n: nested };
  // Read as usual: the route gets to its own checks, and names the field it does not know (issue 48).
  const res = await stack.api('POST', '/agents', { token, body: { _id: 'a-nested', extra: nested }, validate: false });
  expect({ status: res.status, detail: res.body.detail }).toEqual({ status: 400, detail: 'Unknown field: extra' });
});

test('a Nexus operation input nested too deep is refused with the same problem, not a stack overflow', () => {
  let input: unknown = 'x';
  for (let i = 0; i < 5000; i++) input = [input];
  let answer: unknown;
  try {
    fieldsOf({ business: 'acme', user: 'u1', agents: input });
  } catch (error) {
    answer = toNexusError(error);
  }
  expect(crmProblemOf(answer)).toMatchObject({ status: 400, detail: 'Malformed JSON body' });
});
