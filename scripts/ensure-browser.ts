import { execFileSync, execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CHROMIUM_PATH, DEBIAN_CHROMIUM } from './browser-path';

/*
 * `npm test` (its pretest step, which CI's .ci/run runs too): the /docs browser test needs a chromium.
 * When Debian's is missing and this machine can install it (root, apt-get), it is installed; otherwise
 * a message says what to do, and the browser test fails (never skips) with the same advice.
 */

export interface BrowserMachine {
  path: string;
  /** Whether `path` is Debian's chromium (a CHROMIUM_PATH of the user's own is never installed over). */
  isDebianDefault: boolean;
  exists(path: string): boolean;
  canInstall(): boolean;
  install(): void;
  log(line: string): void;
}

export type BrowserOutcome = 'present' | 'installed' | 'missing';

export function ensureBrowser(machine: BrowserMachine): BrowserOutcome {
  if (machine.exists(machine.path)) return 'present';
  const advice = `install it with \`apt-get update && apt-get install -y chromium\` as root, or set CHROMIUM_PATH to a Chromium or Chrome binary`;
  if (!machine.isDebianDefault) {
    machine.log(`CHROMIUM_PATH=${machine.path} does not exist: the /docs browser test will fail; ${advice}.`);
    return 'missing';
  }
  if (!machine.canInstall()) {
    machine.log(`No chromium at ${machine.path}, and this user cannot install it: the /docs browser test will fail; ${advice}.`);
    return 'missing';
  }
  machine.log(`No chromium at ${machine.path}: installing Debian's chromium for the /docs browser test (apt-get)…`);
  try {
    machine.install();
  } catch (error) {
    machine.log(`Installing chromium failed (${(error as Error).message}): the /docs browser test will fail; ${advice}.`);
    return 'missing';
  }
  if (machine.exists(machine.path)) return 'installed';
  machine.log(`apt-get installed no chromium at ${machine.path}: the /docs browser test will fail; ${advice}.`);
  return 'missing';
}

const hasCommand = (name: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

if (require.main === module) {
  ensureBrowser({
    path: CHROMIUM_PATH,
    isDebianDefault: CHROMIUM_PATH === DEBIAN_CHROMIUM,
    exists: existsSync,
    canInstall: () => process.getuid?.() === 0 && hasCommand('apt-get'),
    install: () => execSync('apt-get update -qq && apt-get install -y -qq chromium', { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }),
    log: (line) => console.error(line),
  });
}
