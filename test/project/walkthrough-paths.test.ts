import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths';

/*
 * The commands the README and docs/ give to paste read npm start's files where that stack keeps them
 * (`npm run -s stack:file -- <name>`), not at `.data/…`: with any DATA_DIR those are another directory's,
 * or missing.
 */
const documents = ['README.md', ...readdirSync(join(PROJECT_ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => join('docs', name))];

/** The lines of the documents' shell blocks (```sh) and of their inline commands that read a file. */
function commandLines(): { document: string; line: string }[] {
  return documents.flatMap((document) => {
    const text = readFileSync(join(PROJECT_ROOT, document), 'utf8');
    const blocks = [...text.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].flatMap((match) => match[1].split('\n'));
    const inline = [...text.matchAll(/`([^`\n]*\$\(cat [^`\n]*)`/g)].map((match) => match[1]);
    return [...blocks, ...inline].map((line) => ({ document, line }));
  });
}

test('no command in the README or docs/ reads a file of npm start\'s data directory by the default .data path', () => {
  const lines = commandLines();
  expect(lines.length).toBeGreaterThan(50);
  expect(lines.filter(({ line }) => /(^|[\s"'=(])\.data\/dev-/.test(line))).toEqual([]);
});
