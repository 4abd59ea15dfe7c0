import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { apiClient, type ApiResponse } from '../../support/http';
import { testPort } from '../../support/ports';
import { runEntryPoint, type RunningProcess } from '../../support/process';
import { eventually, uniqueName } from '../../support/stack';

/*
 * Capacity and the queue across OS processes (issue 31, section 4 and 8): two `npm run api` processes
 * and an `npm run worker` process on the suite's PostgreSQL and Temporal. Nothing of one API process's
 * memory protects the other's routes: only the database's locks do. Then kill -9 of the worker in the
 * middle of a drain and of an API process in the middle of a burst of routes: nothing waiting is lost
 * or assigned twice.
 */

const secret = randomBytes(32).toString('hex');
const shared = () => ({
  DATABASE_URL: process.env.TEST_DATABASE_URL!,
  TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
  TEMPORAL_TASK_QUEUE: taskQueue,
  JWT_SECRET: secret,
});
const taskQueue = uniqueName('tq');
const business = uniqueName('biz');
const token = jwt.sign({}, secret, { algorithm: 'HS256', subject: 'router', expiresIn: '1h' });

type Api = ReturnType<typeof apiClient> & { process: RunningProcess };

async function startApi(): Promise<Api> {
  const port = await testPort();
  const metrics = await testPort();
  const run = runEntryPoint('src/main/api.ts', { ...shared(), PORT: String(port), API_METRICS_PORT: String(metrics) }, '"event":"api.listening"', { ports: [port, metrics] });
  await run.ready;
  return Object.assign(apiClient(`http://127.0.0.1:${port}`, business), { process: run });
}

async function startWorker(): Promise<RunningProcess> {
  const port = await testPort();
  const run = runEntryPoint('src/main/worker.ts', { ...shared(), MESSAGE_PROVIDER: 'log', WORKER_HTTP_PORT: String(port) }, '"event":"worker.running"', { ports: [port] });
  await run.ready;
  return run;
}

async function killed(run: RunningProcess): Promise<void> {
  run.child.kill('SIGKILL');
  await run.exited;
}

let first: Api;
let second: Api;
let worker: RunningProcess;

beforeAll(async () => {
  [first, second, worker] = await Promise.all([startApi(), startApi(), startWorker()]);
}, 240_000);

/**
 * Routes sent at once, half through each API process: ten times the three agents' capacity of 2, so the
 * two processes still race for the same capacity and the same queue positions.
 */
const ROUTES = 60;
const ASSIGNED = 6;
const QUEUED = ROUTES - ASSIGNED;
/** Capacity 12 frees 30 places: the 30 oldest waiting are drained, the rest stay queued. */
const DRAINED = 30;
const LATE = 20;

const clientIds = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `c${from + i}`);
const route = (api: Api, client: string, key?: string) => api('POST', `/clients/${client}/route`, { token, body: { policy: 'sales' }, headers: key ? { 'Idempotency-Key': key } : {} });
async function routeUntilAnswered(api: Api, client: string) {
  for (let attempt = 1; ; attempt++) {
    const answer = await route(api, client);
    if (answer.status !== 503 || attempt === 5) return answer;
    await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after') ?? 1) * 1000));
  }
}
const loads = async () => Promise.all(['a1', 'a2', 'a3'].map(async (a) => (await first('GET', `/agents/${a}`, { token })).body.load as number));
const queue = async () => (await first('GET', '/routing-policies/sales/queue', { token })).body.queue as { client: string; position: number }[];
const activeAgents = async (client: string) => ((await first('GET', `/clients/${client}/agents`, { token })).body.assignments as { agent: string }[]).map((a) => a.agent);

test(`${ROUTES} concurrent routes through two API processes never put an agent over capacity: exactly the capacity's worth assigned, the rest queued`, async () => {
  for (const a of ['a1', 'a2', 'a3']) expect((await first('POST', '/agents', { token, body: { _id: a } })).status).toBe(201);
  expect((await first('PUT', '/teams/sales', { token, body: { members: [{ agent: 'a1' }, { agent: 'a2' }, { agent: 'a3' }] } })).status).toBe(200);
  expect((await first('PUT', '/routing-policies/sales', { token, body: { team: 'sales', capacity: 2 } })).status).toBe(200);
  const clients = clientIds(1, ROUTES);
  for (let i = 0; i < clients.length; i += 20) {
    const created = await Promise.all(clients.slice(i, i + 20).map((_id) => first('POST', '/clients', { token, body: { _id } })));
    expect(created.map((c) => c.status)).toEqual(created.map(() => 201));
  }

  // A 503 (a loaded machine: a backing service not answering in time) did nothing: the client asks again after Retry-After, as told.
  const answers = await Promise.all(clients.map((c, i) => routeUntilAnswered(i % 2 ? second : first, c)));
  expect(answers.filter((a) => a.status !== 200 && a.status !== 202).map((a) => a.body)).toEqual([]);
  expect(answers.filter((a) => a.status === 200)).toHaveLength(ASSIGNED);
  expect(answers.filter((a) => a.status === 202)).toHaveLength(QUEUED);
  expect(new Set(answers.filter((a) => a.status === 202).map((a) => a.body.position))).toEqual(new Set(Array.from({ length: QUEUED }, (_, i) => i + 1)));
  expect(await loads()).toEqual([2, 2, 2]);
  expect((await queue()).map((q) => q.position)).toEqual(Array.from({ length: QUEUED }, (_, i) => i + 1));
}, 240_000);

test('kill -9 of the worker during a drain and of an API process during routes: nothing waiting is lost or assigned twice', async () => {
  const before = (await queue()).map((q) => q.client);
  expect(before).toHaveLength(QUEUED);

  // A capacity of 12 takes the 30 oldest; the worker is killed once the drain is under way.
  expect((await first('PUT', '/routing-policies/sales', { token, body: { team: 'sales', capacity: 12 } })).status).toBe(200);
  await eventually(async () => (await loads()).reduce((a, b) => a + b) > 6, 30_000, 50);
  await killed(worker);

  // Twenty new clients routed through the second API, killed while they are in flight; each is routed
  // again with its Idempotency-Key through a new process, as a caller whose connection dropped would.
  const late = clientIds(ROUTES + 1, ROUTES + LATE);
  for (const _id of late) expect((await first('POST', '/clients', { token, body: { _id } })).status).toBe(201);
  const inFlight = Promise.all(late.map((c) => route(second, c, `lead-${c}`).catch((error: Error) => error)));
  await new Promise((resolve) => setTimeout(resolve, 30));
  await killed(second.process);
  const cut = await inFlight;
  const third = await startApi();
  // A request the kill cut off failed (fetch's error comes from another realm than jest's Error).
  const answered = (r: ApiResponse | Error): r is ApiResponse => typeof (r as ApiResponse).status === 'number' && (r as ApiResponse).status < 500;
  const retried = await Promise.all(late.map((c, i) => (answered(cut[i]) ? cut[i] : route(third, c, `lead-${c}`))));
  for (const [i, answer] of retried.entries()) {
    expect(answer.status).toBe(202);
    const again = await route(third, late[i], `lead-${late[i]}`);
    expect(again.body.decision_id).toBe(answer.body.decision_id);
  }

  worker = await startWorker();
  await eventually(async () => (await loads()).every((l) => l === 12), 60_000, 250);
  // The drain is over: nothing moves any more, nobody is over capacity, the 30 oldest were the ones taken.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(await loads()).toEqual([12, 12, 12]);
  const after = (await queue()).map((q) => q.client);
  const stillQueued = QUEUED - DRAINED;
  expect(after).toEqual([...before.slice(DRAINED), ...after.slice(stillQueued)]);
  expect(after.slice(stillQueued).sort()).toEqual([...late].sort());
  const everyClient = clientIds(1, ROUTES + LATE);
  const owners = await Promise.all(everyClient.map(activeAgents));
  expect(owners.filter((o) => o.length > 1)).toEqual([]);
  const assignedClients = everyClient.filter((_, i) => owners[i].length === 1);
  expect(assignedClients).toHaveLength(ASSIGNED + DRAINED);
  expect(new Set([...assignedClients, ...after]).size).toBe(ROUTES + LATE);
}, 300_000);
