/*
 * The suite's jest runtime (test/support/runtime.js): a concurrent test may load a module after another
 * concurrent test has ended, as the SDKs and connectors the stacks load lazily do.
 */
let firstEnded!: () => void;
const ended = new Promise<void>((resolve) => (firstEnded = resolve));

test.concurrent('a test that ends first', async () => {
  setTimeout(firstEnded, 20);
});

test.concurrent('a module loaded after another concurrent test ended is loaded, not refused as outside of the tests', async () => {
  await ended;
  await new Promise((resolve) => setTimeout(resolve, 50));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = require('../../src/domain/message-due') as Record<string, unknown>;
  expect(Object.keys(loaded).length).toBeGreaterThan(0);
});
