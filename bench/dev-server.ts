import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/index';
import { startDevServer } from '../src/stack/temporal-server';
import { connectTemporalClient } from '../src/temporal-client/connection';
import { measure } from './stack';

/** `workflow.start` on a file-backed dev server: SQLite's defaults beside the pragmas `npm start` uses, in one run. */
async function startRate(sqlitePragmas: string[], count: number, concurrency: number) {
  const dir = await mkdtemp(join(tmpdir(), 'crm-devserver-'));
  const server = await startDevServer(loadConfig(), { dbFilename: join(dir, 'temporal.sqlite'), sqlitePragmas });
  const client = await connectTemporalClient(server.address, 'default');
  try {
    return await measure(count, concurrency, async (i) => {
      await client.workflow.start('noSuchWorkflow', { taskQueue: 'nobody-polls', workflowId: `bench-${i}` });
    });
  } finally {
    await client.connection.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

(async () => {
  const [count = 600, concurrency = 10] = process.argv.slice(2).map(Number);
  const defaults = await startRate([], count, concurrency);
  const wal = await startRate(['journal_mode=wal', 'synchronous=normal'], count, concurrency);
  console.log(JSON.stringify({ sqliteDefaults: defaults, walSynchronousNormal: wal, ratio: +(wal.perSecond / defaults.perSecond).toFixed(2) }, null, 2));
  process.exit(0);
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
