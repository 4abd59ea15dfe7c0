import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isExecutable, stopChild } from './child-processes';
import { installAtomically } from './install-atomically';
import { goToolchain, TEMPORAL_SERVER_GO } from './temporal-server-install';

const run = promisify(execFile);

/** The Temporal Web UI the server engine runs beside it (the server binary has none). */
export const TEMPORAL_UI_VERSION = '2.58.1';
const MODULE = 'github.com/temporalio/ui-server/v2';

/*
 * Built from a small module of our own rather than `go install …@v2.58.1`: two of its dependencies'
 * exact versions (echo v4.16.1, go.temporal.io/api v1.64.0) are missing from the Go module proxy this
 * project's machines reach, so they are replaced by their neighbours there (v4.16.0, v1.64.1).
 */
const GO_MOD = `module crm/temporal-ui

go ${TEMPORAL_SERVER_GO}

require ${MODULE} v${TEMPORAL_UI_VERSION}

replace (
\tgithub.com/labstack/echo/v4 v4.16.1 => github.com/labstack/echo/v4 v4.16.0
\tgo.temporal.io/api v1.64.0 => go.temporal.io/api v1.64.1
)
`;


/** The UI server binary under TOOLS_DIR, built when missing (under a minute once the Go toolchain is there). */
export async function installTemporalUi(toolsDir: string, log: (line: string) => void = () => undefined): Promise<string> {
  const dir = join(toolsDir, `temporal-ui-server-${TEMPORAL_UI_VERSION}`);
  const binary = join(dir, 'ui-server');
  if (await isExecutable(binary)) return binary;
  log(`Building the Temporal UI ${TEMPORAL_UI_VERSION} into ${dir} (once for every data directory)…`);
  const { go, toolchain } = await goToolchain();
  if (!go) throw new Error('no `go` command is on PATH to build it');
  const env = { ...process.env, GOTOOLCHAIN: toolchain };
  const pkg = `${MODULE}/cmd/server`;
  await installAtomically(
    dir,
    async (partial) => {
      const src = join(partial, 'src');
      await mkdir(src, { recursive: true });
      await writeFile(join(src, 'go.mod'), GO_MOD);
      try {
        await run('go', ['get', `${pkg}@v${TEMPORAL_UI_VERSION}`], { cwd: src, env, timeout: 600_000 });
        await run('nice', ['-n', '10', 'go', 'build', '-o', join(partial, 'ui-server'), pkg], { cwd: src, env, timeout: 900_000 });
      } catch (error) {
        const { stderr, message } = error as { stderr?: string; message: string };
        throw new Error(`building the Temporal UI ${TEMPORAL_UI_VERSION} failed: ${(stderr || message).trim().split('\n').slice(-5).join(' ')}`);
      }
    },
    () => isExecutable(binary),
  );
  return binary;
}

export interface RunningUi {
  url: string;
  stop(): Promise<void>;
}

/** Runs the UI server on 127.0.0.1:`port` for the Temporal at `address`, with the codec endpoint the dev server's UI gets. */
export async function startTemporalUi(options: { toolsDir: string; dir: string; address: string; port: number; codecEndpoint?: string; log?: (line: string) => void }): Promise<RunningUi> {
  const binary = await installTemporalUi(options.toolsDir, options.log);
  const url = `http://127.0.0.1:${options.port}`;
  const configDir = join(options.dir, 'config');
  await mkdir(configDir, { recursive: true });
  const config = {
    temporalGrpcAddress: options.address,
    host: '127.0.0.1',
    port: options.port,
    enableUi: true,
    defaultNamespace: 'default',
    cors: { allowOrigins: [url, url.replace('127.0.0.1', 'localhost')] },
    ...(options.codecEndpoint && { codec: { endpoint: options.codecEndpoint } }),
  };
  await writeFile(join(configDir, 'base.yaml'), JSON.stringify(config, null, 2), { mode: 0o600 });
  const log = createWriteStream(join(options.dir, 'ui.log'), { flags: 'a' });
  const child: ChildProcess = spawn(binary, ['--root', options.dir, '--config', 'config', '--env', 'development', 'start'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  for (const deadline = Date.now() + 30_000; ; ) {
    if (child.exitCode !== null) throw new Error(`the Temporal UI exited (${child.exitCode}); its log: ${join(options.dir, 'ui.log')}`);
    const up = await fetch(`${url}/api/v1/settings`).then((res) => res.ok, () => false);
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the Temporal UI did not answer on ${url} within 30 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    stop: () => stopChild(child),
  };
}
