import { execFile, spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isExecutable } from './child-processes';
import { installAtomically } from './install-atomically';

const run = promisify(execFile);

/** The Temporal server release the server engine runs; compose.yaml pins the same images. */
export const TEMPORAL_SERVER_VERSION = '1.32.2';
/** The module's `go` directive: the oldest Go that builds it. */
export const TEMPORAL_SERVER_GO = '1.26.10';
const MODULE = 'go.temporal.io/server';
const PACKAGES = [`${MODULE}/cmd/server`, `${MODULE}/cmd/tools/sql`];

export interface TemporalServerTools {
  /** The `temporal-server` binary (`go install` names it `server`). */
  server: string;
  /** `temporal-sql-tool` (named `sql`); it carries the schemas of its release, `postgresql/v12/...`. */
  sqlTool: string;
}

export const serverToolsDir = (toolsDir: string) => join(toolsDir, `temporal-server-${TEMPORAL_SERVER_VERSION}`);


const versionParts = (version: string) => version.split('.').map(Number);
/** Whether Go `have` (e.g. 1.26.8) is at least `need`. */
export function goSatisfies(have: string, need: string): boolean {
  const [a, b] = [versionParts(have), versionParts(need)];
  for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

async function installedGo(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    const { stdout } = await run('go', ['env', 'GOVERSION'], { env: { ...env, GOTOOLCHAIN: 'local' } });
    return stdout.trim().replace(/^go/, '');
  } catch {
    return undefined;
  }
}

/** The installed Go's version, and the GOTOOLCHAIN that builds the server with it or with the Go the module asks for. */
export async function goToolchain(): Promise<{ go?: string; toolchain: string }> {
  const go = await installedGo(process.env);
  return { go, toolchain: process.env.GOTOOLCHAIN ?? (go && goSatisfies(go, TEMPORAL_SERVER_GO) ? 'local' : `go${TEMPORAL_SERVER_GO}`) };
}

/**
 * The Temporal server and its sql tool at TEMPORAL_SERVER_VERSION under TOOLS_DIR, built with
 * `go install` from the Go module proxy when missing (minutes the first time; at once after). An
 * installed Go older than the module's needs fetches the Go toolchain it asks for through the proxy.
 */
export async function installTemporalServer(toolsDir: string, log: (line: string) => void = () => undefined): Promise<TemporalServerTools> {
  const dir = serverToolsDir(toolsDir);
  const tools = { server: join(dir, 'server'), sqlTool: join(dir, 'sql') };
  const built = async () => (await isExecutable(tools.server)) && (await isExecutable(tools.sqlTool));
  if (await built()) return tools;

  const { go, toolchain } = await goToolchain();
  if (!go) {
    throw new Error(
      `The Temporal server engine (TEMPORAL_ENGINE=server) is built from Go module ${MODULE}@v${TEMPORAL_SERVER_VERSION}, and no \`go\` command is on PATH. ` +
        `Install Go 1.21 or newer (https://go.dev/dl; one older than ${TEMPORAL_SERVER_GO} fetches go${TEMPORAL_SERVER_GO} through the Go module proxy), ` +
        `or run the development server (TEMPORAL_ENGINE=dev, the default), or point TEMPORAL_ADDRESS at a cluster.`,
    );
  }
  log(`Building Temporal server ${TEMPORAL_SERVER_VERSION} and its sql tool with Go ${toolchain === 'local' ? go : toolchain} into ${dir} (a few minutes, once for every data directory)…`);
  const started = Date.now();
  await installAtomically(dir, (partial) => goInstall(partial, go, toolchain), built);
  log(`Built Temporal server ${TEMPORAL_SERVER_VERSION} in ${Math.round((Date.now() - started) / 1000)} s.`);
  return tools;
}

async function goInstall(gobin: string, go: string, toolchain: string): Promise<void> {
  await mkdir(gobin, { recursive: true });
  const output: string[] = [];
  // nice: the build takes every core for minutes; whatever else runs on the machine keeps going.
  const child = spawn('nice', ['-n', '10', 'go', 'install', ...PACKAGES.map((p) => `${p}@v${TEMPORAL_SERVER_VERSION}`)], {
    env: { ...process.env, GOBIN: gobin, GOTOOLCHAIN: toolchain },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    output.push(...chunk.toString().trim().split('\n'));
    output.splice(0, Math.max(0, output.length - 30));
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0 || !(await isExecutable(join(gobin, 'server'))) || !(await isExecutable(join(gobin, 'sql')))) {
    throw new Error(
      `Building Temporal server ${TEMPORAL_SERVER_VERSION} failed (go install exited ${code}; Go ${go}, GOTOOLCHAIN=${toolchain}; ` +
        `it needs the Go module proxy${toolchain === 'local' ? '' : ` and, for an older Go, the go${TEMPORAL_SERVER_GO} toolchain from it`}):\n${output.join('\n')}`,
    );
  }
}
