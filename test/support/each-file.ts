import { globalHandlers } from '@temporalio/worker/lib/workflow/vm-shared';
import { stopEverythingStarted } from './process';

/*
 * Run before every test file (jest's setupFilesAfterEnv). A process started in a test is stopped after
 * it; one started in beforeAll, after the file.
 *
 * The suites' workers run their workflows in the jest worker's own thread (TEMPORAL_DEBUG, set by the
 * global setup). There the SDK installs a promise hook and a stack-trace formatter for the whole process,
 * once per module instance, and never removes them: jest loads the SDK afresh for every file, so without
 * the uninstall each file would leave a hook that every later promise of the process pays for.
 */
afterEach(() => stopEverythingStarted(), 120_000);
afterAll(async () => {
  await stopEverythingStarted(true);
  globalHandlers.uninstall();
}, 120_000);
