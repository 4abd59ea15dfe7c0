import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index';
import { startEmbeddedPostgres } from '../../src/stack/postgres';
import { startServerEngine } from '../../src/stack/temporal-server-engine';
import { NEXUS_CALLER_NAMESPACE } from '../support/nexus-namespace';
import { rolloutTests } from './rollout';

/*
 * The rollout under load of worker-versioning.test.ts on the server engine (the Temporal server on
 * PostgreSQL, as production runs it): its Worker Deployments, versioned task dispatch and the visibility
 * columns the tests count by are the server's own, not the dev server's. The engine keeps its data on a
 * PostgreSQL of this file's own, since its databases have fixed names (stack/engine-server.test.ts may run
 * one beside it). When the run's stack is the server engine already, on it.
 */

let address: string | undefined;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  if (process.env.TEST_TEMPORAL_ENGINE === 'server') return;
  const dir = await mkdtemp(join(tmpdir(), 'crm-rollout-engine-'));
  const postgres = await startEmbeddedPostgres({ dataDir: join(dir, 'postgres') });
  stops.push(postgres.stop);
  const engine = await startServerEngine({ adminUrl: postgres.adminUrl(), TOOLS_DIR: loadConfig().TOOLS_DIR, dir, namespaces: [NEXUS_CALLER_NAMESPACE], log: () => undefined });
  stops.push(engine.stop);
  address = engine.address;
}, 15 * 60_000);

rolloutTests(() => address);

// After the rollout's own afterAll (jest runs them in the order they are declared): its workers stop first.
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});
