import './register-telemetry';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { httpMetrics, listen, serveMetrics } from '../api';
import { codecTokenOf, loadStackConfig } from '../config/index';
import { type RunningSimulator, simulatorSettings, startSimulator } from '../stack/simulator';
import { type RunningCrmFakes, startCrmFakes } from '../stack/crm-fakes';
import { crmFakesLines, crmInboundLines } from '../stack/crm-fakes/summary';
import { listConnectors } from '../db/crm-connectors';
import { provideDatabase } from '../stack/database';
import { developmentSecret } from '../secrets/development-secret';
import { passwordsFileOf } from '../stack/postgres';
import { provideNexusEndpoint } from '../stack/nexus-endpoint';
import { applyMigrations } from '../db/migrate';
import { freePort } from '../net/free-port';
import { acquireStackLock } from '../stack/stack-lock';
import { registerRunningStack, runningStacksDir } from '../stack/running-stacks';
import { dataConverterOf } from '../temporal-client/data-converter';
import { generatePayloadKey, parsePayloadKeys } from '../config/payload-keys';
import { startTemporalEngine } from '../stack/temporal-engine';
import { installedTemporalCli } from '../stack/temporal-cli';
import { codecLine } from '../stack/codec-line';
import { dataPaths } from '../paths';
import { secretBoxOf } from '../secrets/configured';
import { logger, configureLogging } from '../logger';
import { createApi, openServices, runObservedWorker } from './services';
import { serveOlderBuilds } from './older-builds';
import { installTemporalRuntime } from '../worker/telemetry';
import { onShutdown } from './shutdown';
import { tracingLine } from '../telemetry/settings';
import { stopTracing } from '../telemetry/active-tracing';

/** A listening host as an operator types it: the wildcard is reached on localhost. */
const hostOf = (host: string) => (host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host);

/**
 * The stack `npm start` supervises (src/main/start.ts): the whole stack on one machine, holding the data
 * directory; whatever the environment points at is used instead of an embedded part.
 */
async function main() {
  const config = loadStackConfig();
  configureLogging(config);
  const sdkMetricsAddress = `127.0.0.1:${await freePort()}`;
  installTemporalRuntime(sdkMetricsAddress);
  const paths = dataPaths(config.DATA_DIR);
  await mkdir(config.DATA_DIR, { recursive: true });
  const lock = await acquireStackLock(paths, (line) => console.log(line));
  // `npm run token`, `sms` and `number` find this stack from another shell, without DATA_DIR.
  const unregister = await registerRunningStack(runningStacksDir(config.XDG_RUNTIME_DIR), config.DATA_DIR).catch((error: Error) => {
    console.log(`The tools beside npm start will find this stack only with DATA_DIR=${config.DATA_DIR} (${error.message})`);
    return async () => undefined;
  });
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    await lock.update({ state: 'stopping' }).catch(() => undefined);
    for (const stop of stops.reverse()) await stop().catch((error) => console.error(error));
    await unregister().catch(() => undefined);
    await lock.release();
    await stopTracing();
  };
  onShutdown(stopAll);

  try {
    const generatedSecret = !config.JWT_SECRET && !config.JWT_PUBLIC_KEY;
    if (generatedSecret && config.NODE_ENV === 'production') throw new Error('Set JWT_SECRET or JWT_PUBLIC_KEY: production has no default secret');
    const jwtSecret = generatedSecret ? await developmentSecret(paths.devJwtSecret) : config.JWT_SECRET;
    if (!config.payloadKeys) dataConverterOf(config); // refuses production without keys
    const payloadKeys = config.payloadKeys ?? parsePayloadKeys(await developmentSecret(paths.devPayloadKeys, () => generatePayloadKey('dev-1')));
    // SECRETS_KEY, else (never in production) the data directory's key: refused before anything starts.
    const secrets = await secretBoxOf(config);
    const workerPort = await freePort(config.WORKER_HTTP_PORT);
    const codecUrl = `http://localhost:${workerPort}/codec`;
    // The dev server's UI can be given a URL only (no header, no access token without OIDC): its codec
    // endpoint carries the bearer secret as its last path segment. Production has no default secret.
    const codecToken = await codecTokenOf(config, () => developmentSecret(paths.devCodecToken));
    // The operator API (/admin, business numbers): ADMIN_TOKEN, else outside production one generated and kept.
    const adminToken = config.ADMIN_TOKEN ?? (config.NODE_ENV === 'production' ? undefined : await developmentSecret(paths.devAdminToken));
    const uiCodecEndpoint = codecToken ? `${codecUrl}/${codecToken}` : config.CODEC_JWT_AUDIENCE ? codecUrl : undefined;

    // PostgreSQL (then its migrations) and the Temporal dev server start side by side: neither needs the
    // other. The server engine keeps its data on that PostgreSQL, so it follows it.
    const databaseReady = provideDatabase(config).then(async (database) => {
      const applied = await applyMigrations(database.url).catch(async (error) => {
        await database.stop();
        throw error;
      });
      if (applied.length) console.log(`Applied migrations: ${applied.join(', ')}`);
      return database;
    });
    const [databaseStart, serverStart] = await Promise.allSettled([
      databaseReady,
      config.TEMPORAL_ADDRESS
        ? Promise.resolve(undefined)
        : (async () =>
            startTemporalEngine(config, {
              dbFilename: paths.temporalDb,
              port: await freePort(config.TEMPORAL_PORT),
              uiPort: await freePort(config.TEMPORAL_UI_PORT),
              uiCodecEndpoint,
              // The dev server writes straight to the terminal, and warns of every list the open UI asks
              // for with a page size over its limit: only its errors, unless LOG_LEVEL asks for more.
              serverLogLevel: config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace' ? 'warn' : 'error',
              postgresAdminUrl: () => databaseReady.then((database) => database.adminUrl ?? database.url),
              dir: paths.temporalServer,
              log: (line) => console.log(line),
            }))(),
    ]);
    if (databaseStart.status === 'fulfilled') stops.push(databaseStart.value.stop);
    if (serverStart.status === 'fulfilled' && serverStart.value) stops.push(serverStart.value.stop);
    if (databaseStart.status === 'rejected') throw databaseStart.reason;
    if (serverStart.status === 'rejected') throw serverStart.reason;
    const database = databaseStart.value;
    const server = serverStart.value;
    const temporalAddress = server?.address ?? config.TEMPORAL_ADDRESS;
    const uiUrl = server?.uiUrl;

    const uiOrigins = uiUrl ? [uiUrl, uiUrl.replace('127.0.0.1', 'localhost')] : [];
    // The simulator posts its receipts and texts to the API's callback routes: PUBLIC_BASE_URL, else this API.
    const apiPort = config.PORT || (await freePort());
    const publicBaseUrl = config.PUBLIC_BASE_URL ?? (config.MESSAGE_PROVIDER === 'simulator' || config.CRM_FAKES === '1' ? `http://127.0.0.1:${apiPort}` : undefined);
    let simulator: RunningSimulator | undefined;
    let simulatorToken: string | undefined;
    if (config.MESSAGE_PROVIDER === 'simulator') {
      simulatorToken = await developmentSecret(paths.devSimulatorToken, () => randomBytes(16).toString('hex'));
      simulator = await startSimulator({
        port: await freePort(config.SIMULATOR_PORT),
        authToken: simulatorToken,
        publicBaseUrl: publicBaseUrl!,
        onCallbackError: (error) => logger.warn({ event: 'simulator.callback_failed', reason: (error as Error).message }, 'the simulator could not post a receipt'),
      });
      stops.push(simulator.stop);
    }
    let crmFakes: RunningCrmFakes | undefined;
    if (config.CRM_FAKES === '1') {
      crmFakes = await startCrmFakes(await developmentSecret(paths.devCrmFakesSecret, () => randomBytes(16).toString('hex')));
      stops.push(crmFakes.stop);
      await writeFile(paths.devCrmFakes, `${JSON.stringify(crmFakes.credentials, null, 2)}\n`, { mode: 0o600 });
    }
    const services = await openServices(
      {
        ...config,
        ...crmFakes?.endpoints,
        PUBLIC_BASE_URL: publicBaseUrl,
        ...(simulator ? simulatorSettings(simulator, simulatorToken!) : {}),
        JWT_SECRET: jwtSecret,
        DATABASE_URL: database.url,
        TEMPORAL_ADDRESS: temporalAddress,
        payloadKeys,
        CODEC_AUTH_TOKEN: codecToken,
        ADMIN_TOKEN: adminToken,
        CODEC_CORS_ORIGINS: config.CODEC_CORS_ORIGINS.length ? config.CODEC_CORS_ORIGINS : uiOrigins,
        // One process serves every run of this machine: its build becomes current as soon as it polls.
        WORKER_SET_CURRENT: config.WORKER_SET_CURRENT ?? 'always',
      },
      { secrets },
    );
    stops.push(services.stop);
    const worker = await runObservedWorker(services, workerPort, sdkMetricsAddress);
    stops.push(worker.stop);
    stops.push((await serveOlderBuilds(services, worker.worker, paths.workflowBundles)).stop);
    const nexus = await provideNexusEndpoint(
      services.temporal.connection,
      { name: config.NEXUS_ENDPOINT, namespace: services.namespace, taskQueue: services.taskQueue },
      !config.TEMPORAL_ADDRESS,
    );
    const metrics = httpMetrics();
    const metricsHttp = await serveMetrics(metrics.registry, await freePort(config.API_METRICS_PORT), config.API_METRICS_HOST);
    stops.push(metricsHttp.stop);
    // The operator token npm start generated (never in production): a refused /admin call says where it is.
    // Loopback unless API_HOST widens it: the development stack answers /admin and the simulator's callbacks.
    const apiHost = config.API_HOST ?? '127.0.0.1';
    const http = await listen(createApi(services, { metrics, ...(adminToken && !config.ADMIN_TOKEN && { adminTokenFile: paths.devAdminToken }) }), apiPort, apiHost);
    stops.push(http.stop);
    await lock.update({
      state: 'running',
      api: `http://localhost:${http.port}`,
      ...(generatedSecret ? { devJwtSecret: paths.devJwtSecret } : {}),
      ...(config.JWT_BUSINESS_CLAIM ? { jwtBusinessClaim: config.JWT_BUSINESS_CLAIM } : {}),
      temporal: { address: services.temporalAddress, namespace: services.namespace, nexusEndpoint: config.NEXUS_ENDPOINT },
      ...(simulator ? { simulator: { url: simulator.url, accountSid: simulator.accountSid, number: simulator.number } } : {}),
    });

    console.log(`
  API          http://localhost:${http.port}/ext/v2/{businessname}${apiHost === '127.0.0.1' ? ' (this machine only; API_HOST=0.0.0.0 opens it to the network)' : ` (listening on ${apiHost})`}
  Temporal UI  ${uiUrl ?? server?.uiNote ?? `(external cluster at ${services.temporalAddress}, namespace ${services.namespace})`}
  Temporal     ${services.temporalAddress}${server ? (server.engine === 'server' ? ` (server engine: Temporal server on PostgreSQL, log in ${paths.temporalServer})` : ' (dev server)') : ''}
  Nexus        ${nexus}
  Traces       ${tracingLine()}
  Metrics      http://${hostOf(config.API_METRICS_HOST)}:${metricsHttp.port}/metrics (API), http://${hostOf(config.WORKER_HTTP_HOST)}:${worker.port}/metrics (worker; health at /healthz)
  API docs     http://localhost:${http.port}/docs
  PostgreSQL   ${database.embedded ? `embedded on 127.0.0.1:${new URL(database.url).port} as ${new URL(database.url).username}, data in ${paths.postgres}, passwords in ${passwordsFileOf(paths.postgres)}` : 'DATABASE_URL'}
  Payloads     encrypted (AES-256-GCM, key ${payloadKeys[0].id}${config.payloadKeys ? '' : ` in ${paths.devPayloadKeys}`}); codec for the UI and CLI at ${codecUrl}
  Secrets      webhook secrets encrypted at rest (AES-256-GCM, key ${secrets.currentKeyId}${config.secretKeys ? '' : ` in ${paths.devSecretsKey}`})
  Codec        ${codecLine({
    url: codecUrl,
    secret: config.CODEC_AUTH_TOKEN ? { env: 'CODEC_AUTH_TOKEN' } : codecToken ? { file: paths.devCodecToken } : undefined,
    cli: await installedTemporalCli(config),
    address: services.temporalAddress,
    namespace: services.namespace,
  })}
  Provider     ${services.provider.name}${simulator ? ` (Twilio-shaped at ${simulator.url}, sending from ${simulator.number}; receipts to ${publicBaseUrl}/providers/simulator/…)` : ''}${simulator ? `
  Text in      npm run sms -- +14155550100 "STOP"   (a client texting ${simulator.number}; --to <number> for a business's own)` : ''}
  Numbers      npm run number -- <business> <+E.164>${simulator ? '   (the simulator has +15005550000 to +15005550009; the shared sender is its own)' : ''}${adminToken ? `; operator API /admin with Authorization: Bearer ${config.ADMIN_TOKEN ? '$ADMIN_TOKEN' : `$(cat ${paths.devAdminToken})`}` : ' (set ADMIN_TOKEN or ADMIN_JWT_AUDIENCE to serve /admin)'}
  CRM in       ${crmInboundLines(publicBaseUrl ?? `http://localhost:${http.port}`, await listConnectors(services.prisma))}${crmFakes ? `
  CRM fakes    ${crmFakesLines(crmFakes.credentials, paths.devCrmFakes)}` : ''}
  Token        npm run token -- <userId>${generatedSecret ? `   (development secret in ${paths.devJwtSecret})` : ''}
  Example      npm run example:deal-won -- <business> <user> <client> <agent>   (finds Temporal ${services.temporalAddress} in ${paths.stackLock})
  Ctrl-C stops everything.
`);
  } catch (error) {
    await stopAll();
    throw error;
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : `npm start failed: ${String(error)}`);
  process.exit(1);
});
