import { readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths';
import { stopEverythingStarted } from './process';

/*
 * A feature's files on the in-process stack run as one jest file, a describe block each. jest loads a test
 * file's modules afresh (the Temporal SDK, Prisma, the API: about 2.5 s of CPU), which these files then
 * load once. Each still starts and stops its own stack, on its own business and task queue, in hooks that
 * its block scopes; what those hooks start as processes stops at the block's end (docs/design.md, "Test
 * files on the in-process stack").
 *
 * The entry names each file in a literal require, so that jest's `--changedSince` (npm run test:changed)
 * sees what it depends on; a file of the folder the entry does not name fails the entry.
 */
export function describeInProcessFiles(featureDir: string, files: Record<string, () => unknown>): void {
  const dir = join(featureDir, 'in-process');
  const present = readdirSync(dir).filter((name) => name.endsWith('.ts')).map((name) => basename(name, '.ts')).sort();
  const missing = present.filter((name) => !(name in files));
  if (missing.length > 0) {
    const entry = relative(PROJECT_ROOT, join(featureDir, 'in-process.test.ts'));
    throw new Error(`${missing.map((name) => `in-process/${name}.ts`).join(', ')} not run: name ${missing.length > 1 ? 'them' : 'it'} in ${entry}`);
  }
  for (const [name, load] of Object.entries(files)) {
    describe(name, () => {
      // jest keeps the last test's name in expect's state until the next test starts: without this, a
      // block's beforeAll would count as inside that test, and what it starts would stop after one test.
      beforeAll(() => expect.setState({ currentTestName: undefined }));
      load();
      afterAll(() => stopEverythingStarted(true), 120_000);
    });
  }
}
