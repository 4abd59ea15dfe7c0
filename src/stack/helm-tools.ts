import { spawn } from 'node:child_process';
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isExecutable } from './child-processes';
import { installAtomically } from './install-atomically';
import { goSatisfies, goToolchain } from './temporal-server-install';

/** Helm, built from its Go module; `--kube-version` of every render is KUBERNETES_VERSION (the client-go Helm builds with). */
export const HELM_VERSION = '4.3.2';
const HELM_GO = '1.26.0';
/** The schemas the chart's objects are checked against, each from its project's Go module. */
export const KUBERNETES_VERSION = '1.37.2';
export const WORKER_CONTROLLER_VERSION = '1.8.1';
export const KEDA_VERSION = '2.21.0';

const SCHEMA_MODULES = {
  kubernetes: `k8s.io/kubernetes@v${KUBERNETES_VERSION}`,
  controller: `github.com/temporalio/temporal-worker-controller@v${WORKER_CONTROLLER_VERSION}`,
  keda: `github.com/kedacore/keda/v2@v${KEDA_VERSION}`,
};

export interface HelmTools {
  helm: string;
  /** `kubernetes/swagger.json`, `temporal-worker-controller/*.yaml` and `keda/*.yaml` (CRDs), `keda/temporal_scaler.go`. */
  schemas: string;
}

export const helmToolsDirs = (toolsDir: string) => ({
  helm: join(toolsDir, `helm-${HELM_VERSION}`),
  schemas: join(toolsDir, `chart-schemas-k${KUBERNETES_VERSION}-twc${WORKER_CONTROLLER_VERSION}-keda${KEDA_VERSION}`),
});

/**
 * Helm and the schemas under TOOLS_DIR, from the Go module proxy when missing: `go install` builds
 * helm (a minute or two on two cores, once), `go mod download` fetches the modules whose files hold the
 * schemas (Kubernetes' OpenAPI document, the controller's and KEDA's CRDs).
 */
export async function installHelmTools(toolsDir: string, log: (line: string) => void = () => undefined): Promise<HelmTools> {
  const dirs = helmToolsDirs(toolsDir);
  const tools = { helm: join(dirs.helm, 'helm'), schemas: dirs.schemas };
  const schemasCopied = async () => (await readdir(join(dirs.schemas, 'keda')).catch((): string[] => [])).includes('temporal_scaler.go');
  if ((await isExecutable(tools.helm)) && (await schemasCopied())) return tools;

  const { go } = await goToolchain();
  if (!go) throw new Error(`Helm ${HELM_VERSION} and the Kubernetes schemas come from the Go module proxy, and no \`go\` command is on PATH (Go 1.21 or newer).`);
  const toolchain = process.env.GOTOOLCHAIN ?? (goSatisfies(go, HELM_GO) ? 'local' : `go${HELM_GO}`);
  const started = Date.now();
  if (!(await isExecutable(tools.helm))) {
    log(`Building Helm ${HELM_VERSION} with Go into ${dirs.helm} (once for every data directory)…`);
    await installAtomically(dirs.helm, (partial) => buildHelm(partial, toolchain), () => isExecutable(tools.helm));
  }
  if (!(await schemasCopied())) {
    log(`Fetching the Kubernetes ${KUBERNETES_VERSION}, temporal-worker-controller ${WORKER_CONTROLLER_VERSION} and KEDA ${KEDA_VERSION} schemas from their Go modules into ${dirs.schemas}…`);
    await installAtomically(dirs.schemas, (partial) => copySchemas(partial, toolchain), schemasCopied);
  }
  log(`Helm ${HELM_VERSION} and the schemas ready in ${Math.round((Date.now() - started) / 1000)} s.`);
  return tools;
}

async function buildHelm(gobin: string, toolchain: string): Promise<void> {
  await mkdir(gobin, { recursive: true });
  const ldflags = `-s -w -X helm.sh/helm/v4/internal/version.version=v${HELM_VERSION}`;
  // nice: the build takes every core for a while; whatever else runs on the machine keeps going.
  await runGo(['install', '-trimpath', `-ldflags=${ldflags}`, `helm.sh/helm/v4/cmd/helm@v${HELM_VERSION}`], { GOBIN: gobin, GOTOOLCHAIN: toolchain, CGO_ENABLED: '0' }, true);
}

/** Where `go mod download` put each module (read-only files in the module cache). */
async function moduleDirs(toolchain: string): Promise<Record<keyof typeof SCHEMA_MODULES, string>> {
  const output = await runGo(['mod', 'download', '-json', ...Object.values(SCHEMA_MODULES)], { GOTOOLCHAIN: toolchain });
  // One JSON object per module, one after the other.
  const reported = JSON.parse(`[${output.trim().replace(/}\s*{/g, '},{')}]`) as { Path: string; Version: string; Dir?: string; Error?: string }[];
  const dirOf = (module: string) => {
    const found = reported.find((m) => `${m.Path}@${m.Version}` === module);
    if (!found?.Dir) throw new Error(`go mod download did not fetch ${module}: ${found?.Error ?? 'not reported'}`);
    return found.Dir;
  };
  return { kubernetes: dirOf(SCHEMA_MODULES.kubernetes), controller: dirOf(SCHEMA_MODULES.controller), keda: dirOf(SCHEMA_MODULES.keda) };
}

async function copySchemas(target: string, toolchain: string): Promise<void> {
  const modules = await moduleDirs(toolchain);
  const copyAll = async (from: string, to: string, names: string[]) => {
    await mkdir(join(target, to), { recursive: true });
    for (const name of names) await copyFile(join(from, name), join(target, to, name));
  };
  await copyAll(join(modules.kubernetes, 'api', 'openapi-spec'), 'kubernetes', ['swagger.json']);
  const controllerCrds = join(modules.controller, 'helm', 'temporal-worker-controller-crds', 'templates');
  await copyAll(controllerCrds, 'temporal-worker-controller', (await readdir(controllerCrds)).filter((name) => name.endsWith('.yaml')));
  const kedaCrds = join(modules.keda, 'config', 'crd', 'bases');
  await copyAll(kedaCrds, 'keda', (await readdir(kedaCrds)).filter((name) => name.startsWith('keda.sh_')));
  await copyAll(join(modules.keda, 'pkg', 'scalers'), 'keda', ['temporal_scaler.go']);
}

/** Runs `go <args>` outside any module; its stdout, or an error with the end of its output. */
async function runGo(args: string[], env: Record<string, string>, niced = false): Promise<string> {
  const [command, commandArgs] = niced ? ['nice', ['-n', '10', 'go', ...args]] : ['go', args];
  const child = spawn(command, commandArgs, { cwd: tmpdir(), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`go ${args.join(' ')} exited ${code} (it needs the Go module proxy):\n${stderr}`);
  return stdout;
}
