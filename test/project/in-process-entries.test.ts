import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths';
import { describeInProcessFiles } from '../support/in-process';
import { testDirSync } from '../support/temp-dir';

/*
 * A feature's in-process files run through its entry (test/support/in-process.ts): one the entry does not
 * name would never run, so the entry fails instead; and every feature's entry names exactly its folder.
 */

test('an entry that does not name a file of its in-process folder fails, naming the file and the entry', () => {
  const feature = testDirSync('in-process-entry');
  mkdirSync(join(feature, 'in-process'));
  for (const name of ['delivery', 'channels', 'quiet-hours']) writeFileSync(join(feature, 'in-process', `${name}.ts`), '');
  expect(() => describeInProcessFiles(feature, { delivery: () => undefined })).toThrow(
    /^in-process\/channels\.ts, in-process\/quiet-hours\.ts not run: name them in .*in-process\.test\.ts$/,
  );
});

test('each feature with an in-process folder has an entry that requires each of its files once', () => {
  const features = readdirSync(join(PROJECT_ROOT, 'test'), { withFileTypes: true }).filter((d) => d.isDirectory() && readdirSync(join(PROJECT_ROOT, 'test', d.name)).includes('in-process'));
  expect(features.length).toBeGreaterThan(10);
  for (const { name } of features) {
    const dir = join(PROJECT_ROOT, 'test', name);
    const files = readdirSync(join(dir, 'in-process')).filter((f) => f.endsWith('.ts')).map((f) => f.replace(/\.ts$/, '')).sort();
    const entry = readFileSync(join(dir, 'in-process.test.ts'), 'utf8');
    const required = [...entry.matchAll(/require\('\.\/in-process\/([^']+)'\)/g)].map((m) => m[1]).sort();
    expect({ feature: name, required }).toEqual({ feature: name, required: files });
  }
});
