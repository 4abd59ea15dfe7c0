import { appendFileSync, mkdtempSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * A test's own directory under the system's temporary one, removed by the global teardown once the run
 * is over and every process the files started has stopped (a file's own afterAll may still use it after
 * its last test). A whole run used to leave some 30 of them behind, PostgreSQL data directories among
 * them. KEEP_TEST_DIRS=1 keeps them, to look into a failure.
 */
function remember(dir: string): string {
  const list = process.env.TEST_DIRS_LIST;
  if (list) appendFileSync(list, `${dir}\n`);
  return dir;
}

/** A fresh directory named `<prefix><random>`, removed at the end of the run. */
export const testDir = async (prefix: string): Promise<string> => remember(await mkdtemp(join(tmpdir(), prefix)));

/** `testDir`, for the code that must have it at once (a module's top level). */
export const testDirSync = (prefix: string): string => remember(mkdtempSync(join(tmpdir(), prefix)));
