import { createPublicKey } from 'node:crypto';
import { z } from 'zod';
import type { AuthConfig } from './api/http/auth';
import { DEFAULT_DATA_DIR } from './paths';
import { DEFAULT_TASK_QUEUE } from './workflows/definitions';

const optional = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() ? v : undefined));

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATA_DIR: z.string().default(DEFAULT_DATA_DIR),
  DATABASE_URL: optional,
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).default(10),
  TEMPORAL_ADDRESS: optional,
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default(DEFAULT_TASK_QUEUE),
  TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233),
  TEMPORAL_PORT: z.coerce.number().int().min(1).max(65535).default(7233),
  JWT_SECRET: optional,
  // A PEM in an environment variable often arrives with literal "\n" escapes instead of line breaks.
  JWT_PUBLIC_KEY: optional.transform((pem) => pem?.replace(/\\n/g, '\n')),
  JWT_ISSUER: optional,
  JWT_AUDIENCE: optional,
  MESSAGE_PROVIDER: z.enum(['log', 'webhook']).default('log'),
  MESSAGE_WEBHOOK_URL: optional.pipe(z.string().url().optional()),
  MESSAGE_WEBHOOK_SECRET: optional,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Origins allowed to call the API from a browser, comma-separated; none by default. */
  CORS_ORIGINS: optional.transform((list) => (list ? list.split(',').map((o) => o.trim()).filter(Boolean) : [])),
  /** Requests per user and minute; 0 turns the limit off. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(0),
  /** Express's `trust proxy`: false, true, a hop count or a list of addresses (for X-Forwarded-For). */
  TRUST_PROXY: optional.transform((value) => (value === undefined || value === 'false' ? false : value === 'true' ? true : /^\d+$/.test(value) ? Number(value) : value)),
  /** The worker's health and metrics port; 0 picks a free one. */
  WORKER_HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** Where to find the Temporal CLI and the time-skipping test server; PATH is searched next. */
  TEMPORAL_CLI_PATH: optional,
  TEMPORAL_TEST_SERVER_PATH: optional,
  PATH: z.string().default(''),
  /** Another schema for the migration tools (`db:check` against a draft). */
  PRISMA_SCHEMA_PATH: optional,
});

export type Config = z.infer<typeof envSchema>;

/** Parses the environment once, at boot; a bad value stops the process with the reason. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const reasons = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${reasons}`);
  }
  const config = parsed.data;
  if (config.JWT_SECRET && config.JWT_SECRET.length < 32) {
    throw new Error('Invalid configuration: JWT_SECRET must be at least 32 characters');
  }
  if (config.JWT_PUBLIC_KEY) {
    try {
      createPublicKey(config.JWT_PUBLIC_KEY);
    } catch {
      throw new Error('Invalid configuration: JWT_PUBLIC_KEY is not a PEM public key');
    }
  }
  if (config.MESSAGE_PROVIDER === 'webhook' && !config.MESSAGE_WEBHOOK_URL) {
    throw new Error('Invalid configuration: MESSAGE_PROVIDER=webhook needs MESSAGE_WEBHOOK_URL');
  }
  return config;
}

/** The token checks of the API. There is no default secret: without a key the API does not start. */
export function authConfigOf(config: Config): AuthConfig {
  if (!config.JWT_SECRET && !config.JWT_PUBLIC_KEY) {
    throw new Error('Invalid configuration: set JWT_SECRET (HS256) or JWT_PUBLIC_KEY (RS256/ES256); there is no default secret');
  }
  return { secret: config.JWT_SECRET, publicKey: config.JWT_PUBLIC_KEY, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE };
}
