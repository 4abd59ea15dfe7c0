/*
 * Run before every test file (jest's setupFilesAfterEnv), so it imports nothing: a file of rules pays for
 * no module it does not use. A process started in a test is stopped after it; one started in beforeAll,
 * after the file (test/support/process.ts hands its stop over on `Symbol.for('crm-test-stop-started')`
 * when a file loads it).
 *
 * The suites' workers run their workflows in the jest worker's own thread (TEMPORAL_DEBUG, set by the
 * global setup). There the SDK installs a promise hook and a stack-trace formatter for the whole process,
 * once per module instance, and never removes them: jest loads the SDK afresh for every file, so without
 * the uninstall each file would leave a hook that every later promise of the process pays for. Its
 * formatter maps through the workflow bundle's source map every error whose constructor is not `Error`
 * itself, a failed assertion's among them: those of this realm go back to jest's formatter. jest runs no
 * beforeEach or afterEach around a `test.concurrent` test, so the stack helper hands the formatter back as
 * soon as its worker has installed the SDK's (on `Symbol.for('crm-test-keep-stack-traces')`).
 */
type Formatter = NonNullable<typeof Error.prepareStackTrace> & { testsFirst?: true };
type StopStarted = (all: boolean) => Promise<void>;
const jestFormatter = Error.prepareStackTrace;

function keepJestStackTraces(): void {
  const current = Error.prepareStackTrace as Formatter | undefined;
  if (!jestFormatter || !current || current === jestFormatter || current.testsFirst) return;
  const combined: Formatter = (error, frames) => (error instanceof Error ? jestFormatter(error, frames) : current(error, frames));
  combined.testsFirst = true;
  Error.prepareStackTrace = combined;
}

async function stopStarted(all: boolean): Promise<void> {
  const stop = (globalThis as Record<symbol, unknown>)[Symbol.for('crm-test-stop-started')] as StopStarted | undefined;
  await stop?.(all);
}

/** Only a file whose worker installed the SDK's handlers changed the formatter: the SDK is then loaded already. */
function uninstallWorkflowHandlers(): void {
  if (Error.prepareStackTrace === jestFormatter) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('@temporalio/worker/lib/workflow/vm-shared') as typeof import('@temporalio/worker/lib/workflow/vm-shared')).globalHandlers.uninstall();
}

(globalThis as Record<symbol, unknown>)[Symbol.for('crm-test-keep-stack-traces')] = keepJestStackTraces;
beforeEach(keepJestStackTraces);
afterEach(() => stopStarted(false), 120_000);
afterAll(async () => {
  await stopStarted(true);
  uninstallWorkflowHandlers();
}, 120_000);
