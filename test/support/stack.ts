import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { Runtime } from '@temporalio/worker';
import { createLogProvider } from '../../src/activities/providers/log';
import type { MessageProvider } from '../../src/activities/providers';
import { listen } from '../../src/api/http/server';
import { loadConfig } from '../../src/config/index';
import { generateNamedKey } from '../../src/config/key-list';
import type { Prisma } from '../../src/db/prisma';
import { createApi, openServices, runWorker, type ApiOptions, type ServiceOverrides, type Services } from '../../src/main/services';
import type { RunningWorker } from '../../src/worker';
import { quietTemporalRuntime, silentLogger, uniqueName, waitForStatus } from './helpers';
import { apiClient, type ApiResponse, type RequestOptions } from './http';
import './workflow-bundle-once';

export type { ApiResponse, RequestOptions } from './http';
export { eventually, uniqueName } from './helpers';

type Api = <T = any>(method: string, path: string, options?: RequestOptions) => Promise<ApiResponse<T>>;

/** The SDK's stack-trace formatter, installed by the worker, hands jest's errors back (test/support/each-file.ts). */
const keepJestStackTraces = () => ((globalThis as Record<symbol, unknown>)[Symbol.for('crm-test-keep-stack-traces')] as (() => void) | undefined)?.();

/** An API's origin, its base URL without `/ext/v2/…`: where the carriers' callbacks and the operator routes are. */
export const originOf = (api: { baseUrl: string }) => api.baseUrl.replace(/\/ext\/v2\/.*$/, '');

export interface TestApi {
  baseUrl: string;
  api: Api;
  stop(): Promise<void>;
}

export interface TestStack extends TestApi {
  business: string;
  taskQueue: string;
  prisma: Prisma;
  temporal: Services['temporal'];
  services: Services;
  secret: string;
  /** A valid HS256 token for `userId`. */
  token(userId: string, claims?: object, options?: jwt.SignOptions): string;
  /** Another API on this suite's business and task queue, with some of its parts replaced. */
  startApi(overrides?: ServiceOverrides & ApiOptions): Promise<TestApi>;
  startWorker(provider?: MessageProvider): Promise<void>;
  stopWorker(): Promise<void>;
}

export interface TestStackOptions extends Pick<ServiceOverrides, 'provider' | 'carrier' | 'hostLookup' | 'numberCarrier'>, Pick<ApiOptions, 'assignTimeoutMs' | 'logger' | 'rotationMinPeriodMs' | 'routingMinFirstResponseMs'> {
  business?: string;
  temporalAddress?: string;
  /** More configuration, e.g. shorter WEBHOOK_* retry settings. */
  env?: Record<string, string>;
  /** TEMPORAL_PAYLOAD_KEYS: the payload codec encrypts what the suite puts through Temporal. */
  payloadKeys?: string;
  /** SECRETS_KEY: seals the secrets the suite stores; a fresh key by default. */
  secretsKey?: string;
  /** The workflow bundle the stack's worker runs (another build's); this build's by default. */
  workflowBundle?: string;
}

/**
 * One suite's stack on the run's shared PostgreSQL and Temporal server, built by the same composition
 * root as the processes: its own business name and task queue, a worker, and the API on a real port.
 */
export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  quietTemporalRuntime();
  const business = options.business ?? uniqueName('biz');
  const secret = randomBytes(32).toString('hex');
  const config = loadConfig({
    DATABASE_URL: process.env.TEST_DATABASE_URL,
    DATABASE_POOL_SIZE: '5',
    TEMPORAL_ADDRESS: options.temporalAddress ?? process.env.TEST_TEMPORAL_ADDRESS,
    TEMPORAL_TASK_QUEUE: uniqueName('tq'),
    // The reconciler of a housekeeping run this stack's worker runs takes this file's rows only.
    RECONCILE_BUSINESSES: business,
    JWT_SECRET: secret,
    TEMPORAL_PAYLOAD_KEYS: options.payloadKeys,
    SECRETS_KEY: options.secretsKey ?? generateNamedKey('test'),
    // Unversioned unless the file asks (WORKER_VERSIONING=on): a Worker Deployment per stack would pass the
    // server's 100 deployments a namespace within a run (docs/design.md, "Worker Versioning").
    WORKER_VERSIONING: 'off',
    ...options.env,
  });
  // A carrier (with PUBLIC_BASE_URL in `env`) is the worker's provider and serves the API's /providers routes.
  const services = await openServices(config, {
    ...(options.carrier && { carrier: options.carrier }),
    ...(options.hostLookup && { hostLookup: options.hostLookup }),
    ...(options.numberCarrier && { numberCarrier: options.numberCarrier }),
  });
  const provider = options.provider ?? (options.carrier ? services.provider : createLogProvider(services.prisma));
  const workflowBundle = { codePath: options.workflowBundle ?? process.env.TEST_WORKFLOW_BUNDLE! };

  let worker: RunningWorker | undefined;
  const startTestWorker = async (withProvider = provider) => {
    worker = await runWorker({ ...services, provider: withProvider }, { workflowBundle });
    keepJestStackTraces();
  };
  await startTestWorker();

  const started: TestApi[] = [];
  const startApi = async (overrides: ServiceOverrides & ApiOptions = {}): Promise<TestApi> => {
    const http = await listen(
      createApi({ ...services, ...overrides }, { log: () => undefined, logger: silentLogger, ...overrides }),
      0,
      '127.0.0.1',
    );
    const origin = `http://127.0.0.1:${http.port}`;
    const api: TestApi = { baseUrl: `${origin}/ext/v2/${business}`, api: apiClient(origin, business), stop: http.stop };
    started.push(api);
    return api;
  };
  const main = await startApi({
    assignTimeoutMs: options.assignTimeoutMs,
    rotationMinPeriodMs: options.rotationMinPeriodMs,
    routingMinFirstResponseMs: options.routingMinFirstResponseMs,
    ...(options.logger && { logger: options.logger }),
  });

  return {
    ...main,
    business,
    taskQueue: services.taskQueue,
    prisma: services.prisma,
    temporal: services.temporal,
    services,
    secret,
    token: (userId, claims = {}, signOptions = {}) =>
      jwt.sign(claims, secret, { algorithm: 'HS256', subject: userId, expiresIn: '1h', ...signOptions }),
    startApi,
    startWorker: startTestWorker,
    async stopWorker() {
      await worker?.stop();
      worker = undefined;
    },
    async stop() {
      for (const api of started) await api.stop();
      await worker?.stop();
      await services.stop();
      await Runtime.instance().shutdown();
    },
  };
}

/** A stack and a token of `user`. */
export async function startStackFor(user: string, options: TestStackOptions = {}): Promise<{ stack: TestStack; token: string }> {
  const stack = await startTestStack(options);
  return { stack, token: stack.token(user) };
}

/** A stack and a token of `user`, who has a client `c1` (phone +14155550100) and an agent `a1`. */
export async function startStackWithClientAndAgent(user: string): Promise<{ stack: TestStack; token: string }> {
  const { stack, token } = await startStackFor(user);
  await stack.api('POST', '/clients', { token, body: { _id: 'c1', phone: '+14155550100' } });
  await stack.api('POST', '/agents', { token, body: { _id: 'a1' } });
  return { stack, token };
}

/**
 * Work that makes a worker run both kinds of workflow task: the user's client `c-1` and agent `a1`, a
 * message to the client run until `sent`, and an assignment of the agent expiring 1.5 s from now.
 * Returns the message and the assignment's answer.
 */
export async function messageSentAndAssignmentExpiring(stack: TestStack, token: string, text: string): Promise<{ message: any; assigned: ApiResponse }> {
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c-1', name: 'Ada', phone: '+14155550100' } })).status).toBe(201);
  expect((await stack.api('POST', '/agents', { token, body: { _id: 'a1' } })).status).toBe(201);
  const sent = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c-1', text_message: text } });
  await waitForStatus(stack.api, token, sent.body._id, 'sent');
  const assigned = await stack.api('POST', '/clients/c-1/assign-agents', { token, body: { agents: [{ agent: 'a1', dt_until: new Date(Date.now() + 1500).toISOString() }] } });
  return { message: sent.body, assigned };
}
