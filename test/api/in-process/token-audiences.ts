import { adminCredentialsOf, authConfigOf, loadConfig } from '../../../src/config/index';
import { expectProblem, memoryLogger } from '../../support/helpers';
import { originOf, startTestStack, type TestApi, type TestStack } from '../../support/stack';

/*
 * One token opens one service: a JWT whose `aud` names both the business API's audience and the
 * operator API's is refused by both. Refused operator calls leave a warn line `admin.access_refused`.
 */

const API = 'crm-api';
const ADMIN = 'crm-admin';
const log = memoryLogger();
let stack: TestStack;
let api: TestApi;

beforeAll(async () => {
  stack = await startTestStack();
  const config = loadConfig({ JWT_SECRET: stack.secret, JWT_AUDIENCE: API, ADMIN_JWT_AUDIENCE: ADMIN });
  api = await stack.startApi({ auth: authConfigOf(config), adminCredentials: adminCredentialsOf(config), logger: log.logger });
});
afterAll(async () => {
  await stack?.stop();
});

const admin = (token?: string) => fetch(`${originOf(api)}/admin/messages/7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
const refusals = () => log.lines.filter((line) => line.event === 'admin.access_refused');

test('a token for the business API alone opens the business routes, not /admin', async () => {
  const token = stack.token('u1', { aud: API });
  expect((await api.api('GET', '/agents', { token })).status).toBe(200);
  const before = refusals().length;
  expect((await admin(token)).status).toBe(401);
  expect(refusals().slice(before)).toEqual([expect.objectContaining({ level: 'warn', event: 'admin.access_refused', reason: 'credential not accepted', method: 'GET', path: '/messages/7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4' })]);
});

test('a token for the operator API alone opens /admin, not the business routes', async () => {
  const token = stack.token('ops-1', { aud: ADMIN });
  expect((await admin(token)).status).toBe(404);
  expectProblem(await api.api('GET', '/agents', { token }), 401, 'Invalid token');
});

test('a token whose aud names both audiences opens neither, and its /admin call is logged as refused', async () => {
  const token = stack.token('both', { aud: [API, ADMIN] });
  expectProblem(await api.api('GET', '/agents', { token }), 401, `Token is also for another service (aud ${ADMIN}): use a token made for this one alone`);
  const before = refusals().length;
  expect((await admin(token)).status).toBe(401);
  expect(refusals().slice(before)).toHaveLength(1);
  expect(JSON.stringify(refusals())).not.toContain(token);
});

test('a call without any credential is logged as refused too', async () => {
  const before = refusals().length;
  expect((await admin()).status).toBe(401);
  expect(refusals().slice(before)).toEqual([expect.objectContaining({ event: 'admin.access_refused', reason: 'no bearer credential' })]);
});
