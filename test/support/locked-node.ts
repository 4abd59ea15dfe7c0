import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths';

/** The version of this platform's Node package (node-<os>-<cpu>) in package-lock.json: the Node the project runs on. */
export function lockedNodeVersion(): string | undefined {
  const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
  return lock.packages[`node_modules/node-${process.platform}-${process.arch}`]?.version;
}
