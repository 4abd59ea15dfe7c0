import { createServer, type Server } from 'node:net';
import { testPort } from '../support/ports';
import { runProcess, stopEverythingStarted } from '../support/process';
import { processTree, stillRunning } from '../support/process-tree';

/*
 * The helpers every stack test starts its processes with: a port a test hands over is verified to be
 * answered by the process it started (not by whatever else took it), and whatever a test started is
 * stopped after it, whatever its outcome.
 */
const node = (code: string): [string, string[]] => [process.execPath, ['-e', code]];

let suiteProcess: ReturnType<typeof runProcess>;
beforeAll(async () => {
  suiteProcess = runProcess(...node('console.log("ready"); setInterval(() => {}, 1000)'), {}, 'ready');
  await suiteProcess.ready;
});

test('a port another process answers on is named, and the start does not pass for ready', async () => {
  const port = await testPort();
  const intruder: Server = createServer();
  await new Promise<void>((resolve) => intruder.listen(port, '127.0.0.1', resolve));
  try {
    const run = runProcess(...node('console.log("ready"); setInterval(() => {}, 1000)'), {}, 'ready', { ports: [port] });
    await expect(run.ready).rejects.toThrow(`port ${port} is answered by pid ${process.pid}`);
  } finally {
    intruder.close();
  }
});

test('a port the started process listens on itself (or through a child) passes', async () => {
  const port = await testPort();
  const server = `require("node:net").createServer().listen(${port}, "127.0.0.1", () => console.log("ready"))`;
  const run = runProcess(...node(`require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(server)}], { stdio: "inherit" }); setInterval(() => {}, 1000)`), {}, 'ready', { ports: [port] });
  await run.ready;
});

test('test ports are never handed out twice and lie below the kernel ephemeral range', async () => {
  const ports = await Promise.all(Array.from({ length: 20 }, () => testPort()));
  expect(new Set(ports).size).toBe(20);
  for (const port of ports) expect(port).toBeLessThan(32_768);
});

test('a test that fails leaves its processes, and what they started, to the cleanup', async () => {
  const run = runProcess(...node('require("node:child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { detached: true, stdio: "ignore" }); console.log("ready"); setInterval(() => {}, 1000)'), {}, 'ready');
  await run.ready;
  const orphaned = processTree(run.child.pid!);
  expect(orphaned).toHaveLength(2);
  // What a failing test would leave: stopped here as jest's afterEach does, whatever the outcome.
  await stopEverythingStarted();
  expect(orphaned.filter(stillRunning)).toEqual([]);
});

test('a process started for the whole file (beforeAll) outlives each test, and is stopped after the file', () => {
  expect(processTree(suiteProcess.child.pid!).filter(stillRunning)).toHaveLength(1);
});
