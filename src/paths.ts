import { join, resolve } from 'node:path';

/** The checkout (or the built copy's parent): `src/` and `dist/` both sit one level below it. */
export const PROJECT_ROOT = resolve(__dirname, '..');
export const SCHEMA_PATH = join(PROJECT_ROOT, 'prisma', 'schema.prisma');
export const MIGRATIONS_DIR = join(PROJECT_ROOT, 'prisma', 'migrations');
export const WORKFLOWS_PATH = require.resolve('./workflows');
/** The workflow bundle's interceptors: OpenTelemetry's for traced runs (src/telemetry/workflow-interceptors.ts), then the request id's. */
export const WORKFLOW_INTERCEPTOR_MODULES = [require.resolve('./telemetry/workflow-interceptors'), require.resolve('./workflows/interceptors')];
/** Written by `npm run build` beside the compiled code (dist/); absent when running from src/. */
export const PREBUILT_WORKFLOW_BUNDLE = join(__dirname, 'workflow-bundle.js');
export const DEFAULT_DATA_DIR = join(PROJECT_ROOT, '.data');
/**
 * The Temporal CLI, the time-skipping test server and the server engine's builds, shared by every data
 * directory of this checkout (TOOLS_DIR moves it): a new DATA_DIR starts without installing or building again.
 */
export const DEFAULT_TOOLS_DIR = join(DEFAULT_DATA_DIR, 'tools');

/** What `npm start` and the tools keep under the data directory. */
export function dataPaths(dataDir: string) {
  const root = resolve(dataDir);
  return {
    postgres: join(root, 'postgres'),
    temporalDb: join(root, 'temporal.sqlite'),
    /** The server engine's configuration and log (its data lives in PostgreSQL). */
    temporalServer: join(root, 'temporal-server'),
    devJwtSecret: join(root, 'dev-jwt-secret'),
    /** `npm start`'s codec bearer secret when CODEC_AUTH_TOKEN is not set (never in production). */
    devCodecToken: join(root, 'dev-codec-token'),
    /** `npm start`'s operator API bearer secret when ADMIN_TOKEN is not set (never in production); `npm run number` reads it. */
    devAdminToken: join(root, 'dev-admin-token'),
    /** `npm start`'s payload key when TEMPORAL_PAYLOAD_KEYS is not set, kept so histories stay readable. */
    devPayloadKeys: join(root, 'dev-payload-keys'),
    /** The key sealing secrets kept in the database (SECRETS_KEY's form) when SECRETS_KEY is not set (never in production). */
    devSecretsKey: join(root, 'dev-secrets-key'),
    /** The simulator's auth token (it signs the simulator's receipts and texts) when MESSAGE_PROVIDER=simulator. */
    devSimulatorToken: join(root, 'dev-simulator-token'),
    /** The seed of the CRM fakes' credentials (CRM_FAKES=1), and the settings they accept, for the connectors. */
    devCrmFakesSecret: join(root, 'dev-crm-fakes-secret'),
    devCrmFakes: join(root, 'dev-crm-fakes.json'),
    /** The workflow bundle of each build `npm start` ran whose version may still have open runs (src/main/older-builds.ts). */
    workflowBundles: join(root, 'workflow-bundles'),
    /** Who holds the data directory: the running `npm start`'s pid, ports and state. */
    stackLock: join(root, 'stack.lock'),
  };
}
