import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBrowser, type BrowserMachine } from '../../scripts/ensure-browser';
import { PROJECT_ROOT } from '../../src/paths';

/*
 * `npm test` on a fresh machine: its pretest step installs Debian's chromium for the /docs browser test
 * when it is missing and the machine can (root, apt-get), and says what to do when it cannot.
 */
function machine(overrides: Partial<BrowserMachine> & { installs?: boolean } = {}) {
  const present = new Set<string>();
  const calls: string[] = [];
  const lines: string[] = [];
  const m: BrowserMachine = {
    path: '/usr/bin/chromium',
    isDebianDefault: true,
    exists: (path) => present.has(path),
    canInstall: () => true,
    install: () => {
      calls.push('install');
      if (overrides.installs !== false) present.add('/usr/bin/chromium');
    },
    log: (line) => lines.push(line),
    ...overrides,
  };
  return { m, present, calls, lines };
}

test('a present browser is left alone', () => {
  const { m, present, calls, lines } = machine();
  present.add('/usr/bin/chromium');
  expect(ensureBrowser(m)).toBe('present');
  expect(calls).toEqual([]);
  expect(lines).toEqual([]);
});

test("Debian's chromium missing on a machine that can install it: installed", () => {
  const { m, calls } = machine();
  expect(ensureBrowser(m)).toBe('installed');
  expect(calls).toEqual(['install']);
});

test('a machine that cannot install it (not root, or no apt-get) is told what to do, and nothing is tried', () => {
  const { m, calls, lines } = machine({ canInstall: () => false });
  expect(ensureBrowser(m)).toBe('missing');
  expect(calls).toEqual([]);
  expect(lines.join('\n')).toContain('No chromium at /usr/bin/chromium, and this user cannot install it: the /docs browser test will fail; install it with `apt-get update && apt-get install -y chromium` as root, or set CHROMIUM_PATH');
});

test("a CHROMIUM_PATH of the user's own that does not exist is named, never installed over", () => {
  const { m, calls, lines } = machine({ path: '/opt/chrome/chrome', isDebianDefault: false });
  expect(ensureBrowser(m)).toBe('missing');
  expect(calls).toEqual([]);
  expect(lines.join('\n')).toContain('CHROMIUM_PATH=/opt/chrome/chrome does not exist');
});

test('a failed or empty install is reported, not hidden', () => {
  const failing = machine({ install: () => { throw new Error('E: Unable to locate package chromium'); } });
  expect(ensureBrowser(failing.m)).toBe('missing');
  expect(failing.lines.join('\n')).toContain('Installing chromium failed (E: Unable to locate package chromium)');
  const empty = machine({ installs: false });
  expect(ensureBrowser(empty.m)).toBe('missing');
  expect(empty.lines.join('\n')).toContain('apt-get installed no chromium at /usr/bin/chromium');
});

test("the README's test command runs the step, and CI relies on it rather than installing on its own", () => {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(pkg.scripts.pretest).toContain('scripts/ensure-browser.ts');
  const ci = readFileSync(join(PROJECT_ROOT, '.ci', 'run'), 'utf8');
  expect(ci).toMatch(/^npm test\b/m);
  expect(ci).not.toMatch(/apt-get install/);
  // Run as npm does: with the browser present here it prints nothing and succeeds.
  expect(execFileSync(join(PROJECT_ROOT, 'node_modules/.bin/tsx'), ['scripts/ensure-browser.ts'], { cwd: PROJECT_ROOT, stdio: 'pipe' }).toString()).toBe('');
});
