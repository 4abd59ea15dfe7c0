import { globalHandlers } from '@temporalio/worker/lib/workflow/vm-shared';

/*
 * The suites' workers run their workflows in the jest worker's own thread (TEMPORAL_DEBUG, set by the
 * global setup). There the SDK installs a promise hook and a stack-trace formatter for the whole
 * process, once per module instance, and never removes them: jest loads the SDK afresh for every file,
 * so without this each file would add a hook that every later promise of the process pays for.
 */
afterAll(() => globalHandlers.uninstall());
