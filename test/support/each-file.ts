import { globalHandlers } from '@temporalio/worker/lib/workflow/vm-shared';
import { stopEverythingStarted } from './process';

/*
 * Run before every test file (jest's setupFilesAfterEnv). A process started in a test is stopped after
 * it; one started in beforeAll, after the file.
 *
 * The suites' workers run their workflows in the jest worker's own thread (TEMPORAL_DEBUG, set by the
 * global setup). There the SDK installs a promise hook and a stack-trace formatter for the whole process,
 * once per module instance, and never removes them: jest loads the SDK afresh for every file, so without
 * the uninstall each file would leave a hook that every later promise of the process pays for. Its
 * formatter maps through the workflow bundle's source map every error whose constructor is not `Error`
 * itself, a failed assertion's among them: those of this realm go back to jest's formatter.
 */
type Formatter = NonNullable<typeof Error.prepareStackTrace> & { testsFirst?: true };
const jestFormatter = Error.prepareStackTrace;

function keepJestStackTraces(): void {
  const current = Error.prepareStackTrace as Formatter | undefined;
  if (!jestFormatter || !current || current === jestFormatter || current.testsFirst) return;
  const combined: Formatter = (error, frames) => (error instanceof Error ? jestFormatter(error, frames) : current(error, frames));
  combined.testsFirst = true;
  Error.prepareStackTrace = combined;
}

beforeEach(keepJestStackTraces);
afterEach(() => stopEverythingStarted(), 120_000);
afterAll(async () => {
  await stopEverythingStarted(true);
  globalHandlers.uninstall();
}, 120_000);
