import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';
import { waitForStatus } from '../../support/helpers';
import { coalesced } from '../../../src/db/wal';

/*
 * An erasure pushes what it erased out of PostgreSQL's write-ahead log: it switches to a new segment and
 * checkpoints, so the segments that held the client's name and texts are removed (the embedded
 * cluster runs with wal_recycle off, so they are not kept under another name either).
 */

let stack: TestStack;
let admin: Client;
beforeAll(async () => {
  stack = await startTestStack();
  expect(process.env.TEST_DATABASE_ADMIN_URL).toBeDefined();
  admin = new Client({ connectionString: process.env.TEST_DATABASE_ADMIN_URL });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await stack.stop();
});

async function walDir(): Promise<string> {
  const { rows } = await admin.query<{ data_directory: string }>('SHOW data_directory');
  return join(rows[0].data_directory, 'pg_wal');
}

/** The WAL segments that hold `needle`, read from the cluster's own files. */
function segmentsHolding(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle, 'utf8');
  return readdirSync(dir)
    .filter((name) => /^[0-9A-F]{24}$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(join(dir, name)).includes(bytes);
      } catch {
        return false; // removed while listed
      }
    });
}

test('the embedded cluster removes freed WAL segments instead of recycling them, and the service\'s role may switch and checkpoint', async () => {
  expect((await admin.query('SHOW wal_recycle')).rows[0].wal_recycle).toBe('off');
  const [rights] = await stack.prisma.$queryRaw<{ checkpoint: boolean; switch: boolean; superuser: boolean }[]>`
    SELECT pg_has_role('pg_checkpoint', 'MEMBER') AS checkpoint, has_function_privilege('pg_catalog.pg_switch_wal()', 'EXECUTE') AS switch,
           (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser`;
  expect(rights).toEqual({ checkpoint: true, switch: true, superuser: false });
});

test('after DELETE /clients/{_id}, the WAL segments that held the client\'s name and texts are gone, past a checkpoint', async () => {
  const token = stack.token(uniqueName('user'));
  const name = `Walda ${uniqueName('w').replace(/[^a-z0-9]/gi, '')}`;
  const text = `Your code word is ${uniqueName('t').replace(/[^a-z0-9]/gi, '')}`;
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'wal-1', name, phone: '+14155550931' } })).status).toBe(201);
  const sent = await stack.api('POST', '/messages', { token, body: { client: 'wal-1', message_type: 'text', text_message: text } });
  expect(sent.status).toBe(202);
  await waitForStatus(stack.api, token, sent.body._id, 'sent');
  const dir = await walDir();
  const holding = [...new Set([...segmentsHolding(dir, name), ...segmentsHolding(dir, text)])];
  // What the test looks for is there to be removed.
  expect(holding.length).toBeGreaterThan(0);
  const { rows: [{ lsn: erasedAt }] } = await admin.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');

  expect((await stack.api('DELETE', '/clients/wal-1', { token })).status).toBe(204);
  // The first erasure of a process pushes the WAL at once, after its answer.
  const deadline = Date.now() + 20_000;
  while (holding.some((segment) => existsSync(join(dir, segment))) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(holding.filter((segment) => existsSync(join(dir, segment)))).toEqual([]);
  const { rows: [checkpoint] } = await admin.query<{ past: boolean }>('SELECT redo_lsn > $1::pg_lsn AS past FROM pg_control_checkpoint()', [erasedAt]);
  expect(checkpoint.past).toBe(true);
});

describe('erasures in a burst share one switch and checkpoint', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test('the first runs at once, the rest of the interval wait for one more run, and a quiet interval lets the next run at once', async () => {
    let runs = 0;
    const push = coalesced(async () => {
      runs++;
    }, 30_000);
    push();
    expect(runs).toBe(1);
    await Promise.resolve();
    for (let i = 0; i < 50; i++) push();
    expect(runs).toBe(1);
    await jest.advanceTimersByTimeAsync(29_000);
    expect(runs).toBe(1);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(runs).toBe(2);
    push();
    expect(runs).toBe(3);
  });
});
