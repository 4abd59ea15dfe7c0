import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths';
import { testDirSync } from '../support/temp-dir';

/*
 * The repository's documentation stands on its own: every relative link and anchor in the README and
 * docs/ leads somewhere, and nothing points to files that only exist outside the repository.
 */

const DOCS = ['README.md', ...readdirSync(join(PROJECT_ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The text outside fenced code blocks and inline code, where links are links. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: rendered text, lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function brokenLinks(doc: string, file = join(PROJECT_ROOT, doc)): string[] {
  const broken: string[] = [];
  for (const [, target] of prose(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const [path, anchor] = target.split('#', 2);
    const linked = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    if (!existsSync(linked)) {
      broken.push(`${doc}: ${target} (no such file)`);
      continue;
    }
    if (anchor !== undefined && linked.endsWith('.md') && !anchorsOf(linked).has(anchor)) {
      broken.push(`${doc}: ${target} (no such heading in ${relative(PROJECT_ROOT, linked)})`);
    }
  }
  return broken;
}

/** Every file of the repository's own, not installed, generated or run-time ones. */
function repositoryFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ['node_modules', '.git', '.data', 'dist', 'generated', 'coverage'].includes(entry.name) ? [] : repositoryFiles(path);
    return entry.isFile() && statSync(path).size < 2_000_000 ? [path] : [];
  });
}

describe('the documentation', () => {
  test('every relative link of README.md and docs/*.md leads to a file, and every anchor to a heading', () => {
    expect(DOCS).toEqual(expect.arrayContaining(['README.md', 'docs/interface.md']));
    expect(DOCS.flatMap((doc) => brokenLinks(doc))).toEqual([]);
  });

  test('the check finds a missing file and a missing heading, with anchors as GitHub computes them', () => {
    expect(slug('`POST /clients/{_id}/assign-agents`')).toBe('post-clients_idassign-agents');
    expect(slug('The five goals of "Delivery on time at scale"')).toBe('the-five-goals-of-delivery-on-time-at-scale');
    expect(slug('Request ids, logs, metrics, HTTP settings')).toBe('request-ids-logs-metrics-http-settings');
    const dir = testDirSync('docs-links-');
    const page = join(dir, 'page.md');
    writeFileSync(
      page,
      '# Page\n\n## Same\n\n## Same\n\n[ok](#same-1) [ok](page.md#page) [gone](#nowhere) [lost](missing.md) `[code](missing.md)`\n',
    );
    expect(brokenLinks('page.md', page)).toEqual(['page.md: #nowhere (no such heading in ' + relative(PROJECT_ROOT, page) + ')', 'page.md: missing.md (no such file)']);
  });

  test('no file of the repository refers to interface files kept outside it', () => {
    // Spelled in parts so that this file does not name them itself.
    const outside = [['shared', 'seed'].join('/'), ['shared', 'contract.md'].join('/')];
    const mentions = repositoryFiles(PROJECT_ROOT).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return outside.filter((name) => text.includes(name)).map((name) => `${relative(PROJECT_ROOT, file)}: ${name}`);
    });
    expect(mentions).toEqual([]);
  });
});
