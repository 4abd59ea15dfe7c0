import { createPublicKey, hkdfSync, randomBytes } from 'node:crypto';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { z } from 'zod';
import type { AuthConfig } from './auth';
import { carrierSettingsProblem } from './carriers';
import { DEFAULT_DATA_DIR, DEFAULT_TOOLS_DIR } from '../paths';
import { parsePayloadKeys, type PayloadKey } from './payload-keys';
import { parseKeyList, type NamedKey } from './key-list';
import { DEFAULT_NUMBER_CHANNELS, SHARED_SENDER_CHANNEL_CHOICES, type NumberChannel } from '../domain/channels';
import { DEFAULT_BATCH_CHUNK_SIZE, DEFAULT_BATCH_CONCURRENCY, DEFAULT_TASK_QUEUE, DEFAULT_WEBHOOK_RETRY, type WebhookRetry } from '../domain';

/** What a HELP or INFO text is answered with unless SMS_HELP_TEXT says otherwise. */
export const DEFAULT_SMS_HELP_TEXT = 'Reply STOP to unsubscribe. Msg&data rates may apply.';

const optional = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() ? v : undefined));

/** RFC 7519's registered claims, which name no business. */
/** A DNS name of two labels or more, its last one not a number (an address is not a domain). */
const DOMAIN_NAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

const REGISTERED_CLAIMS = ['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti'];

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /**
   * The API's listening address. Unset: `127.0.0.1` under `npm start` (a development stack serves /admin
   * and the simulator's callbacks: this machine only), `0.0.0.0` for `npm run api` (a deployment's
   * public door); `0.0.0.0` (or an interface's address) widens npm start's.
   */
  API_HOST: optional,
  DATA_DIR: z.string().default(DEFAULT_DATA_DIR),
  /** The user's runtime directory: where each running `npm start` records its data directory for the tools beside it (src/stack/running-stacks.ts). */
  XDG_RUNTIME_DIR: optional,
  /** Where the Temporal CLI, the test server and the server engine's builds are installed, shared by every DATA_DIR. */
  TOOLS_DIR: z.string().min(1).default(DEFAULT_TOOLS_DIR),
  DATABASE_URL: optional,
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).default(10),
  TEMPORAL_ADDRESS: optional,
  TEMPORAL_NAMESPACE: optional,
  TEMPORAL_TASK_QUEUE: z.string().default(DEFAULT_TASK_QUEUE),
  /**
   * The businesses this worker's housekeeping run reconciles, comma-separated; unset: every business (a
   * deployment's one reconciler). The test suites set it so that no file's worker adopts another's rows.
   */
  RECONCILE_BUSINESSES: optional.transform((list) => (list ? [...new Set(list.split(',').map((b) => b.trim()).filter(Boolean))] : undefined)),
  /** The Nexus endpoint name that `npm start` creates on its dev server and prints. */
  NEXUS_ENDPOINT: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,199}$/, 'must be a letter then letters, digits, _ or -').default('crm'),
  /** What runs Temporal when TEMPORAL_ADDRESS is unset: the dev server (SQLite) or the server engine on the stack's PostgreSQL. */
  TEMPORAL_ENGINE: z.enum(['dev', 'server']).default('dev'),
  /** The server engine's history shards, fixed when its databases are first set up. */
  TEMPORAL_HISTORY_SHARDS: z.coerce.number().int().min(1).max(16384).default(4),
  TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233),
  TEMPORAL_PORT: z.coerce.number().int().min(1).max(65535).default(7233),
  JWT_SECRET: optional,
  // A PEM in an environment variable often arrives with literal "\n" escapes instead of line breaks.
  JWT_PUBLIC_KEY: optional.transform((pem) => pem?.replace(/\\n/g, '\n')),
  JWT_ISSUER: optional,
  /** Seals the event feed's cursors (at least 32 characters); absent: derived from JWT_SECRET. */
  CURSOR_SECRET: optional,
  JWT_AUDIENCE: optional,
  /** The longest lifetime (`exp` − `iat`) a token may have: seconds, or `90s`, `15m`, `12h`, `7d`; unset: any. */
  JWT_MAX_AGE: optional,
  /**
   * The claim naming the businesses a token may act for (a string or an array of strings), e.g. `org` or
   * `https://crm.example/org`; unset: a token acts for any business in the path.
   */
  JWT_BUSINESS_CLAIM: optional.transform((name) => name?.trim()).pipe(
    z
      .string()
      .refine((name) => !REGISTERED_CLAIMS.includes(name), `must not be one of the registered claims ${REGISTERED_CLAIMS.join(', ')}`)
      .optional(),
  ),
  MESSAGE_PROVIDER: z.enum(['log', 'webhook', 'twilio', 'telnyx', 'vonage', 'simulator']).default('log'),
  MESSAGE_WEBHOOK_URL: optional.pipe(z.string().url().optional()),
  MESSAGE_WEBHOOK_SECRET: optional,
  /** Where carriers reach this API (receipts, inbound texts): each send asks for its receipt under it. */
  PUBLIC_BASE_URL: optional.pipe(z.string().url().optional()),
  /** What a HELP or INFO text is answered with. */
  SMS_HELP_TEXT: optional.pipe(z.string().max(320).optional()).transform((text) => text ?? DEFAULT_SMS_HELP_TEXT),
  TWILIO_ACCOUNT_SID: optional,
  TWILIO_AUTH_TOKEN: optional,
  TWILIO_API_KEY_SID: optional,
  TWILIO_API_KEY_SECRET: optional,
  TWILIO_MESSAGING_SERVICE_SID: optional,
  TWILIO_FROM: optional,
  TWILIO_API_URL: optional.pipe(z.string().url().optional()),
  /** Twilio's Content API base instead of https://content.twilio.com (WhatsApp templates' approval; a test double, the simulator). */
  TWILIO_CONTENT_API_URL: optional.pipe(z.string().url().optional()),
  TELNYX_API_KEY: optional,
  TELNYX_MESSAGING_PROFILE_ID: optional,
  TELNYX_FROM: optional,
  TELNYX_PUBLIC_KEY: optional,
  TELNYX_API_URL: optional.pipe(z.string().url().optional()),
  VONAGE_API_KEY: optional,
  VONAGE_API_SECRET: optional,
  VONAGE_APPLICATION_ID: optional,
  // A PEM in an environment variable often arrives with literal "\n" escapes instead of line breaks.
  VONAGE_PRIVATE_KEY: optional.transform((pem) => pem?.replace(/\\n/g, '\n')),
  VONAGE_FROM: optional,
  VONAGE_SIGNATURE_SECRET: optional,
  VONAGE_API_URL: optional.pipe(z.string().url().optional()),
  /** The CRMs' REST bases, for their fakes in tests and on npm start; unset: the vendors' own (Salesforce: each connector's instance_url). */
  HUBSPOT_API_URL: optional.pipe(z.string().url().optional()),
  SALESFORCE_API_URL: optional.pipe(z.string().url().optional()),
  PIPEDRIVE_API_URL: optional.pipe(z.string().url().optional()),
  /**
   * More domains whose subdomains Salesforce connectors' instance_url and login_url may name (a
   * partner's or government cloud), comma-separated (`example.com` or `*.example.com`); Salesforce's own are always allowed.
   */
  SALESFORCE_ALLOWED_DOMAINS: optional.transform((list, ctx) => {
    const domains = list ? list.split(',').map((d) => d.trim().toLowerCase().replace(/^\*?\./, '')).filter(Boolean) : [];
    for (const domain of domains) {
      if (!DOMAIN_NAME.test(domain)) ctx.addIssue({ code: 'custom', message: `${domain} is not a domain name such as example.com` });
    }
    return domains;
  }),
  /** CRM APIs on private, loopback or link-local addresses: refused in production, allowed elsewhere by default (the fakes). */
  CRM_ALLOW_PRIVATE_URLS: z.enum(['true', 'false']).optional(),
  /** `1`: npm start runs local fakes of HubSpot, Salesforce and Pipedrive and points the SDKs at them (development only). */
  CRM_FAKES: optional.pipe(z.enum(['0', '1']).optional()),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `pretty` (readable lines) or `json`; unset: pretty on a terminal outside production, JSON otherwise. */
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  /** Origins allowed to call the API from a browser, comma-separated; none by default. */
  CORS_ORIGINS: optional.transform((list) => (list ? list.split(',').map((o) => o.trim()).filter(Boolean) : [])),
  /** The payload codec's AES-256-GCM keys (`id:base64`, comma-separated, the encrypting one first). */
  TEMPORAL_PAYLOAD_KEYS: optional,
  /** The keys sealing secrets kept in the database (webhook secrets): `id:base64`, comma-separated, the sealing key first. */
  SECRETS_KEY: optional,
  /** Temporal UI origins allowed to call the worker's codec endpoint (/codec) from a browser; none: the CLI only. */
  CODEC_CORS_ORIGINS: optional.transform((list) => (list ? list.split(',').map((o) => o.trim()).filter(Boolean) : [])),
  /** A bearer secret for the codec endpoint: `Authorization: Bearer <it>` (the CLI's --codec-auth), or `/codec/<it>` as the UI's endpoint. */
  CODEC_AUTH_TOKEN: optional,
  /** Accept JWTs on the codec endpoint, checked like the API's (JWT_SECRET / JWT_PUBLIC_KEY, JWT_ISSUER), whose `aud` is this. */
  CODEC_JWT_AUDIENCE: optional,
  /** The operator API (/admin): a bearer secret, and/or JWTs checked like the API's whose `aud` is ADMIN_JWT_AUDIENCE; neither: not served. */
  ADMIN_TOKEN: optional,
  ADMIN_JWT_AUDIENCE: optional,
  /** A business without numbers of its own may not send from the deployment's shared sender (default: on in production). */
  REQUIRE_BUSINESS_NUMBERS: optional.pipe(z.enum(['true', 'false']).optional()),
  /** A send from a US number whose A2P registration forbids it is refused (default: on in production and with the simulator). */
  REQUIRE_A2P_REGISTRATION: optional.pipe(z.enum(['true', 'false']).optional()),
  /** Carriers (twilio, telnyx, vonage, simulator) and countries (ISO, e.g. US) where such a send only warns, comma-separated. */
  A2P_REGISTRATION_WARN_ONLY: optional.transform((list) => (list ? [...new Set(list.split(',').map((entry) => entry.trim()).filter(Boolean))] : [])),
  /** What the deployment's shared sender carries, comma-separated of sms, mms, whatsapp (default sms,mms; the simulator all three). */
  SHARED_SENDER_CHANNELS: optional.pipe(
    z
      .string()
      .transform((raw) => [...new Set(raw.split(',').map((c) => c.trim()).filter(Boolean))])
      .pipe(z.array(z.enum(SHARED_SENDER_CHANNEL_CHOICES), { error: 'must be a comma-separated list of sms, mms, whatsapp' }))
      .optional(),
  ),
  /** On the shared sender, a reply is matched only when one business and user texted the phone from it within these days. */
  SHARED_SENDER_MATCH_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Backpressure: message accepts this API process hands to Temporal at once (beyond: a short wait, then 503). */
  MESSAGE_STARTS_IN_FLIGHT: z.coerce.number().int().min(1).default(6),
  /** Campaigns: messages a second each sender sends at most (a carrier's throughput limit), shared by every worker; unset: unlimited. */
  MESSAGE_SEND_RATE_PER_SECOND: optional.pipe(z.coerce.number<string | undefined>().positive().max(10_000).optional()),
  /** Campaigns: messages one chunk of a batch claims and sends, and chunks of one batch sent at once. */
  MESSAGE_BATCH_CHUNK_SIZE: z.coerce.number().int().min(1).max(1000).default(DEFAULT_BATCH_CHUNK_SIZE),
  MESSAGE_BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(DEFAULT_BATCH_CONCURRENCY),
  /** Backpressure: assign-agents requests this API process has waiting on Temporal at once. */
  ASSIGN_REQUESTS_IN_FLIGHT: z.coerce.number().int().min(1).default(32),
  /** Requests per user (token subject) and minute, across businesses; 0 turns the limit off. Default: see rateLimitDefault. */
  RATE_LIMIT_PER_MINUTE: optional.pipe(z.coerce.number<string | undefined>().int().min(0).optional()),
  /** Requests a minute to one business's inbound door of one CRM, counted before any database work; 0 turns the limit off. */
  CRM_INBOUND_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(6000),
  /** Requests a minute from one address to a group of the unauthenticated doors (CRM and carrier callbacks, /readyz); 0 turns it off. */
  PUBLIC_DOOR_LIMIT_PER_SOURCE: z.coerce.number().int().min(0).default(6000),
  /** Requests a minute from one address to such a door that are not proven by their signature or secret (failed or still being checked); 0 turns it off. */
  PUBLIC_DOOR_UNVERIFIED_LIMIT_PER_SOURCE: z.coerce.number().int().min(0).default(120),
  /** The same across the addresses without an accepted delivery in the last minute or two; 0 turns it off. */
  PUBLIC_DOOR_UNVERIFIED_LIMIT_TOTAL: z.coerce.number().int().min(0).default(1200),
  /** Express's `trust proxy`: false, true, a hop count or a list of addresses (for X-Forwarded-For). */
  TRUST_PROXY: optional.transform((value) => (value === undefined || value === 'false' ? false : value === 'true' ? true : /^\d+$/.test(value) ? Number(value) : value)),
  /** The carrier simulator's port (`npm start` with MESSAGE_PROVIDER=simulator); another free one when it is taken, 0 picks one. */
  SIMULATOR_PORT: z.coerce.number().int().min(0).max(65535).default(9466),
  /** The embedded PostgreSQL's preferred port (`npm start`); another free one when it is taken. */
  POSTGRES_PORT: z.coerce.number().int().min(0).max(65535).default(54329),
  /** The worker's health, metrics and codec port; 0 picks a free one. Loopback unless told otherwise. */
  WORKER_HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  WORKER_HTTP_HOST: z.string().min(1).default('127.0.0.1'),
  /** The API's Prometheus endpoint, apart from its public port; 0 picks a free one. Loopback unless told otherwise. */
  API_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9465),
  API_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** Where to find the Temporal CLI and the time-skipping test server; PATH is searched next. */
  TEMPORAL_CLI_PATH: optional,
  TEMPORAL_TEST_SERVER_PATH: optional,
  /** A workflow bundle built beforehand (the tests' one, for the processes they start from src/); unset: dist's, else bundled at start. */
  WORKFLOW_BUNDLE_PATH: optional,
  /** Worker Versioning (src/worker/versioning.ts): `off` polls unversioned, as a worker before it did. */
  WORKER_VERSIONING: z.enum(['on', 'off']).default('on'),
  /** The Worker Deployment the worker polls as a version of; unset: the task queue's name (`crm-messaging`). */
  WORKER_DEPLOYMENT_NAME: z.string().regex(/^[^:\s]{1,200}$/, 'must be 1 to 200 characters, no colon and no space').optional(),
  /** The version's build id; unset: derived from the workflow bundle's content. */
  WORKER_BUILD_ID: z.string().regex(/^[^:\s]{1,200}$/, 'must be 1 to 200 characters, no colon and no space').optional(),
  /** When the worker makes its version current: `always` (npm start), `if-none` (no current version yet), `never` (a rollout by the CLI). */
  WORKER_SET_CURRENT: z.enum(['always', 'if-none', 'never']).optional(),
  /** Set by temporal-worker-controller on each build's pods: the version to poll as, when WORKER_DEPLOYMENT_NAME / WORKER_BUILD_ID are unset. */
  TEMPORAL_DEPLOYMENT_NAME: z.string().regex(/^[^:\s]{1,200}$/, 'must be 1 to 200 characters, no colon and no space').optional(),
  TEMPORAL_WORKER_BUILD_ID: z.string().regex(/^[^:\s]{1,200}$/, 'must be 1 to 200 characters, no colon and no space').optional(),
  PATH: z.string().default(''),
  /** Event webhooks: how long one POST may take, the first and longest wait between attempts, when to give up. */
  /** Event webhooks to private, loopback or link-local addresses: refused in production, allowed elsewhere by default. */
  WEBHOOK_ALLOW_PRIVATE_URLS: z.enum(['true', 'false']).optional(),
  /** How long the event feed keeps events (days); the sweep deletes older ones nothing waits on. */
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(4).max(3650).default(90),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  WEBHOOK_RETRY_INITIAL_MS: z.coerce.number().int().min(100).default(DEFAULT_WEBHOOK_RETRY.initialIntervalMs),
  WEBHOOK_RETRY_MAX_INTERVAL_MS: z.coerce.number().int().min(100).default(DEFAULT_WEBHOOK_RETRY.maximumIntervalMs),
  WEBHOOK_GIVE_UP_AFTER_MS: z.coerce.number().int().min(1000).default(DEFAULT_WEBHOOK_RETRY.giveUpAfterMs),
  /** How often the worker looks for deliveries a crash left without their workflow (then triggers the sweep), and how old they must be. */
  WEBHOOK_SWEEP_EVERY_MS: z.coerce.number().int().min(1000).default(30_000),
  WEBHOOK_SWEEP_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  /** Another schema for the migration tools (`db:check` against a draft). */
  PRISMA_SCHEMA_PATH: optional,
});

/** How to reach Temporal beyond its address: TLS, mTLS client certificates, an API key, gRPC metadata. */
export type TemporalConnectionOptions = Pick<NativeConnectionOptions, 'tls' | 'apiKey' | 'metadata'>;

export type Config = Omit<z.infer<typeof envSchema>, 'TEMPORAL_NAMESPACE' | 'RATE_LIMIT_PER_MINUTE'> & {
  TEMPORAL_NAMESPACE: string;
  RATE_LIMIT_PER_MINUTE: number;
  temporalConnection: TemporalConnectionOptions;
  /** Parsed TEMPORAL_PAYLOAD_KEYS; absent: payloads go to Temporal unencrypted (refused in production). */
  payloadKeys?: PayloadKey[];
  /** Parsed SECRETS_KEY; absent: a development key kept in the data directory (refused in production). */
  secretKeys?: NamedKey[];
  /** Parsed JWT_MAX_AGE, in seconds. */
  jwtMaxAgeSeconds?: number;
  /** DATA_DIR was set, not defaulted: the tools beside npm start look at that data directory only. */
  dataDirGiven: boolean;
};

/**
 * Temporal's own client configuration, read the way its CLI and SDKs read it: TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*, TEMPORAL_GRPC_META_*, and a profile
 * (TEMPORAL_PROFILE) of the TOML file at TEMPORAL_CONFIG_FILE or the default path.
 */
function temporalProfile(env: NodeJS.ProcessEnv) {
  const strings = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  try {
    return loadClientConnectConfig({ overrideEnvVars: strings });
  } catch (error) {
    throw new Error(`Invalid configuration: Temporal connection (TEMPORAL_TLS_*, TEMPORAL_API_KEY, TEMPORAL_PROFILE): ${(error as Error).message}`);
  }
}

const DURATION_UNIT_SECONDS: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };

/** `3600`, `90s`, `15m`, `12h`, `7d` in seconds (1 s to 10 years); undefined for anything else. */
function durationSeconds(text: string): number | undefined {
  const match = /^(\d{1,10})([smhd]?)$/.exec(text.trim());
  const seconds = match ? Number(match[1]) * DURATION_UNIT_SECONDS[match[2]] : 0;
  return seconds >= 1 && seconds <= 3650 * 86_400 ? seconds : undefined;
}

/**
 * The rate limit production has unless RATE_LIMIT_PER_MINUTE says otherwise: 20 requests a second,
 * sustained for a minute, per user. A CRM's import that paces itself stays under it; a client looping
 * on its requests meets it within seconds. Outside production there is none unless set (local
 * imports, the benchmarks and the tests send as fast as they can). docs/operations.md, "Rate limit".
 */
export const PRODUCTION_RATE_LIMIT_PER_MINUTE = 1200;

/** Parses the environment once, at boot; a bad value stops the process with the reason. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const reasons = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${reasons}`);
  }
  const profile = temporalProfile(env);
  const { address, ...temporalConnection } = profile.connectionOptions;
  const config: Config = {
    ...parsed.data,
    TEMPORAL_ADDRESS: parsed.data.TEMPORAL_ADDRESS ?? address,
    TEMPORAL_NAMESPACE: parsed.data.TEMPORAL_NAMESPACE ?? profile.namespace ?? 'default',
    RATE_LIMIT_PER_MINUTE: parsed.data.RATE_LIMIT_PER_MINUTE ?? (parsed.data.NODE_ENV === 'production' ? PRODUCTION_RATE_LIMIT_PER_MINUTE : 0),
    temporalConnection,
    dataDirGiven: env.DATA_DIR !== undefined,
  };
  if (config.JWT_SECRET && config.JWT_SECRET.length < 32) {
    throw new Error('Invalid configuration: JWT_SECRET must be at least 32 characters');
  }
  if (config.CURSOR_SECRET && config.CURSOR_SECRET.length < 32) {
    throw new Error('Invalid configuration: CURSOR_SECRET must be at least 32 characters');
  }
  if (config.JWT_PUBLIC_KEY) {
    try {
      createPublicKey(config.JWT_PUBLIC_KEY);
    } catch {
      throw new Error('Invalid configuration: JWT_PUBLIC_KEY is not a PEM public key');
    }
  }
  if (config.TEMPORAL_PAYLOAD_KEYS) {
    try {
      config.payloadKeys = parsePayloadKeys(config.TEMPORAL_PAYLOAD_KEYS);
    } catch (error) {
      throw new Error(`Invalid configuration: ${(error as Error).message}`);
    }
  }
  if (config.SECRETS_KEY) {
    try {
      config.secretKeys = parseKeyList('SECRETS_KEY', config.SECRETS_KEY);
    } catch (error) {
      throw new Error(`Invalid configuration: ${(error as Error).message}`);
    }
  }
  if (config.JWT_MAX_AGE) {
    config.jwtMaxAgeSeconds = durationSeconds(config.JWT_MAX_AGE);
    if (config.jwtMaxAgeSeconds === undefined) {
      throw new Error('Invalid configuration: JWT_MAX_AGE must be a whole number of seconds, or a number followed by s, m, h or d (e.g. 3600, 15m, 12h), from 1 second to 3650 days');
    }
  }
  if (config.CODEC_AUTH_TOKEN && (config.CODEC_AUTH_TOKEN.length < 32 || !/^[A-Za-z0-9._~+/-]+=*$/.test(config.CODEC_AUTH_TOKEN))) {
    throw new Error('Invalid configuration: CODEC_AUTH_TOKEN must be at least 32 characters of letters, digits and -._~+/');
  }
  if (config.CODEC_JWT_AUDIENCE) {
    if (!config.JWT_SECRET && !config.JWT_PUBLIC_KEY) throw new Error('Invalid configuration: CODEC_JWT_AUDIENCE needs JWT_SECRET or JWT_PUBLIC_KEY to check the tokens');
    // Both audiences checked, and different: an API token does not open the codec, nor a codec token the API.
    if (!config.JWT_AUDIENCE || config.CODEC_JWT_AUDIENCE === config.JWT_AUDIENCE) {
      throw new Error('Invalid configuration: CODEC_JWT_AUDIENCE needs JWT_AUDIENCE set to another audience (an API token must not open the codec, nor a codec token the API)');
    }
  }
  if (config.ADMIN_TOKEN && (config.ADMIN_TOKEN.length < 32 || !/^[A-Za-z0-9._~+/-]+=*$/.test(config.ADMIN_TOKEN))) {
    throw new Error('Invalid configuration: ADMIN_TOKEN must be at least 32 characters of letters, digits and -._~+/');
  }
  if (config.ADMIN_JWT_AUDIENCE) {
    if (!config.JWT_SECRET && !config.JWT_PUBLIC_KEY) throw new Error('Invalid configuration: ADMIN_JWT_AUDIENCE needs JWT_SECRET or JWT_PUBLIC_KEY to check the tokens');
    if (!config.JWT_AUDIENCE || config.ADMIN_JWT_AUDIENCE === config.JWT_AUDIENCE || config.ADMIN_JWT_AUDIENCE === config.CODEC_JWT_AUDIENCE) {
      throw new Error('Invalid configuration: ADMIN_JWT_AUDIENCE needs JWT_AUDIENCE set to another audience, and differs from CODEC_JWT_AUDIENCE (a business token must not open the operator API)');
    }
  }
  if (config.MESSAGE_PROVIDER === 'webhook' && !config.MESSAGE_WEBHOOK_URL) {
    throw new Error('Invalid configuration: MESSAGE_PROVIDER=webhook needs MESSAGE_WEBHOOK_URL');
  }
  // The simulator answers like Twilio and serves its routes to whoever calls them: never in production, whichever process reads this.
  if (config.MESSAGE_PROVIDER === 'simulator' && config.NODE_ENV === 'production') {
    throw new Error('Invalid configuration: MESSAGE_PROVIDER=simulator is for development; production sends through a carrier');
  }
  // The CRM fakes take any write and serve their control routes to whoever calls them: never in production.
  if (config.CRM_FAKES === '1' && config.NODE_ENV === 'production') {
    throw new Error('Invalid configuration: CRM_FAKES=1 is for development; production talks to the CRMs themselves');
  }
  const carrierProblem = carrierSettingsProblem(config);
  if (carrierProblem) throw new Error(`Invalid configuration: ${carrierProblem}`);
  return config;
}

/**
 * `npm start`'s configuration: as loadConfig, except that without MESSAGE_PROVIDER it sends through the
 * simulator it runs (outside production), so a first run shows receipts, opt-outs and replies.
 */
export function loadStackConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const simulatorByDefault = !env.MESSAGE_PROVIDER && env.NODE_ENV !== 'production';
  return loadConfig(simulatorByDefault ? { ...env, MESSAGE_PROVIDER: 'simulator' } : env);
}

export const BUSINESS_CLAIM_REQUIRED =
  'Invalid configuration: in production set JWT_BUSINESS_CLAIM to the claim naming the businesses a token acts for (say org): ' +
  'a business\'s numbers, their replies, its unmatched texts, connectors and templates belong to the whole business, so a token must be bound to it ' +
  '(docs/interface.md, "Tokens bound to a business")';

/**
 * The token checks of the API. There is no default secret: without a key the API does not start. In
 * production neither does it without JWT_BUSINESS_CLAIM: otherwise the path alone would say which
 * business a token acts for, and any token holder would send from another business's numbers.
 */
export function authConfigOf(config: Config): AuthConfig {
  if (!config.JWT_SECRET && !config.JWT_PUBLIC_KEY) {
    throw new Error('Invalid configuration: set JWT_SECRET (HS256) or JWT_PUBLIC_KEY (RS256/ES256); there is no default secret');
  }
  if (config.NODE_ENV === 'production' && !config.JWT_BUSINESS_CLAIM) throw new Error(BUSINESS_CLAIM_REQUIRED);
  return {
    secret: config.JWT_SECRET,
    publicKey: config.JWT_PUBLIC_KEY,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    maxAgeSeconds: config.jwtMaxAgeSeconds,
    businessClaim: config.JWT_BUSINESS_CLAIM,
    refusedAudiences: otherAudiences(config, config.JWT_AUDIENCE),
  };
}

/** The audiences of the services other than the one whose audience is `own`: a token naming one of them is not this service's. */
function otherAudiences(config: Config, own: string | undefined): string[] {
  return [config.JWT_AUDIENCE, config.ADMIN_JWT_AUDIENCE, config.CODEC_JWT_AUDIENCE].filter((aud): aud is string => aud !== undefined && aud !== own);
}

/** Who may call the codec endpoint: the holder of a bearer secret, or of a JWT made for the codec. */
export interface CodecCredentials {
  token?: string;
  jwt?: AuthConfig & { audience: string };
}

/** The codec's credentials from CODEC_AUTH_TOKEN and CODEC_JWT_AUDIENCE; none: the codec endpoint is not served. */
export function codecCredentialsOf(config: Config): CodecCredentials | undefined {
  const jwt = config.CODEC_JWT_AUDIENCE
    ? { secret: config.JWT_SECRET, publicKey: config.JWT_PUBLIC_KEY, issuer: config.JWT_ISSUER, audience: config.CODEC_JWT_AUDIENCE, maxAgeSeconds: config.jwtMaxAgeSeconds, refusedAudiences: otherAudiences(config, config.CODEC_JWT_AUDIENCE) }
    : undefined;
  return config.CODEC_AUTH_TOKEN || jwt ? { token: config.CODEC_AUTH_TOKEN, jwt } : undefined;
}

/** Who may call the operator API (/admin): the holder of ADMIN_TOKEN, or of a JWT made for ADMIN_JWT_AUDIENCE; undefined: not served. */
export function adminCredentialsOf(config: Config): CodecCredentials | undefined {
  const jwt = config.ADMIN_JWT_AUDIENCE
    ? { secret: config.JWT_SECRET, publicKey: config.JWT_PUBLIC_KEY, issuer: config.JWT_ISSUER, audience: config.ADMIN_JWT_AUDIENCE, maxAgeSeconds: config.jwtMaxAgeSeconds, refusedAudiences: otherAudiences(config, config.ADMIN_JWT_AUDIENCE) }
    : undefined;
  return config.ADMIN_TOKEN || jwt ? { token: config.ADMIN_TOKEN, jwt } : undefined;
}

/** What the shared sender carries: SHARED_SENDER_CHANNELS, else SMS and MMS (the simulator: WhatsApp too). */
export const sharedSenderChannelsOf = (config: Config): readonly NumberChannel[] =>
  config.SHARED_SENDER_CHANNELS ?? (config.MESSAGE_PROVIDER === 'simulator' ? SHARED_SENDER_CHANNEL_CHOICES : DEFAULT_NUMBER_CHANNELS);

/** Whether a business needs numbers of its own to send (REQUIRE_BUSINESS_NUMBERS; in production by default). */
export const requireBusinessNumbersOf = (config: Config): boolean => (config.REQUIRE_BUSINESS_NUMBERS ?? (config.NODE_ENV === 'production' ? 'true' : 'false')) === 'true';

/**
 * Whether a US number's A2P registration is enforced (REQUIRE_A2P_REGISTRATION; by default in production,
 * and with the simulator, whose numbers are approved until set otherwise), and where it only warns.
 */
export const a2pRegistrationSettingsOf = (config: Config): { required: boolean; warnOnly: readonly string[] } => ({
  required: (config.REQUIRE_A2P_REGISTRATION ?? (config.NODE_ENV === 'production' || config.MESSAGE_PROVIDER === 'simulator' ? 'true' : 'false')) === 'true',
  warnOnly: config.A2P_REGISTRATION_WARN_ONLY,
});

/**
 * The codec's bearer secret for `npm start`: CODEC_AUTH_TOKEN, else outside production one generated
 * and kept (`generate`). Production has no default: without CODEC_AUTH_TOKEN there is none.
 */
export async function codecTokenOf(config: Config, generate: () => Promise<string>): Promise<string | undefined> {
  if (config.CODEC_AUTH_TOKEN) return config.CODEC_AUTH_TOKEN;
  return config.NODE_ENV === 'production' ? undefined : generate();
}

const developmentCursorKeys = new WeakMap<Config, Buffer>();

/** The 32-byte cursor key from a configured secret; the label keeps it apart from the secret's other uses. */
export function cursorKeyFrom(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'crm-messaging', 'events feed cursor v1', 32));
}

/**
 * The key that seals the event feed's cursors: from CURSOR_SECRET, else from JWT_SECRET (under its own
 * label, so neither secret's other use learns anything). Production with neither does not start: every
 * API process must share one key. Elsewhere a random key serves, and cursors last as long as the process.
 */
export function cursorKeyOf(config: Config): Buffer {
  const secret = config.CURSOR_SECRET ?? config.JWT_SECRET;
  if (secret) return cursorKeyFrom(secret);
  if (config.NODE_ENV === 'production') {
    throw new Error('Invalid configuration: set CURSOR_SECRET (or JWT_SECRET) to seal the event feed\'s cursors; there is no default secret');
  }
  const key = developmentCursorKeys.get(config) ?? randomBytes(32);
  developmentCursorKeys.set(config, key);
  return key;
}

/** How event webhooks are delivered, from the WEBHOOK_* settings. */
export interface WebhookSettings {
  retry: WebhookRetry;
  /** Receivers on private, loopback or link-local addresses are allowed (development, tests). */
  allowPrivateUrls: boolean;
  /** Events older than this are deleted by the sweep once no delivery waits on them. */
  eventRetentionMs: number;
  timeoutMs: number;
  sweepEveryMs: number;
  sweepGraceMs: number;
}

/** The settings without any WEBHOOK_* variable. */
export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = { retry: DEFAULT_WEBHOOK_RETRY, allowPrivateUrls: false, eventRetentionMs: 90 * 24 * 60 * 60 * 1000, timeoutMs: 10_000, sweepEveryMs: 30_000, sweepGraceMs: 10_000 };

/** Private addresses are refused in production unless the setting (`allow`) says otherwise, and allowed elsewhere. */
const allowsPrivate = (allow: 'true' | 'false' | undefined, nodeEnv: string | undefined) => (allow ? allow === 'true' : nodeEnv !== 'production');

export function webhookSettingsOf(config: Config): WebhookSettings {
  const allowPrivateUrls = allowsPrivate(config.WEBHOOK_ALLOW_PRIVATE_URLS, config.NODE_ENV);
  return {
    retry: {
      initialIntervalMs: config.WEBHOOK_RETRY_INITIAL_MS,
      maximumIntervalMs: Math.max(config.WEBHOOK_RETRY_MAX_INTERVAL_MS, config.WEBHOOK_RETRY_INITIAL_MS),
      giveUpAfterMs: config.WEBHOOK_GIVE_UP_AFTER_MS,
    },
    allowPrivateUrls,
    eventRetentionMs: config.EVENT_RETENTION_DAYS * 24 * 60 * 60 * 1000,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    sweepEveryMs: config.WEBHOOK_SWEEP_EVERY_MS,
    sweepGraceMs: config.WEBHOOK_SWEEP_GRACE_MS,
  };
}

/** Where the CRMs' SDKs send their requests: the vendors' bases unless overridden (tests, fakes). */
export interface CrmEndpoints {
  hubspot?: string;
  /** Replaces every Salesforce connector's instance_url. */
  salesforce?: string;
  pipedrive?: string;
  /** SALESFORCE_ALLOWED_DOMAINS: domains beyond Salesforce's own that a connector's URLs may name. */
  salesforceDomains?: readonly string[];
  /** CRM_ALLOW_PRIVATE_URLS: the SDKs may connect to private, loopback and link-local addresses (unset: they may not). */
  allowPrivateUrls?: boolean;
}

export const crmEndpointsOf = (
  config: Pick<Config, 'HUBSPOT_API_URL' | 'SALESFORCE_API_URL' | 'PIPEDRIVE_API_URL' | 'SALESFORCE_ALLOWED_DOMAINS' | 'CRM_ALLOW_PRIVATE_URLS' | 'NODE_ENV'>,
): CrmEndpoints => ({
  hubspot: config.HUBSPOT_API_URL,
  salesforce: config.SALESFORCE_API_URL,
  pipedrive: config.PIPEDRIVE_API_URL,
  salesforceDomains: config.SALESFORCE_ALLOWED_DOMAINS,
  allowPrivateUrls: allowsPrivate(config.CRM_ALLOW_PRIVATE_URLS, config.NODE_ENV),
});
