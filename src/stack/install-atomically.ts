import { randomBytes } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';

/**
 * Builds `target` (a file or a directory) under a name of its own beside it, then renames it into place.
 * The tools directory is shared by every data directory, so two stacks (or test runs) may install the
 * same tool at once: neither sees a half-written one, and the first complete one is kept.
 */
export async function installAtomically(target: string, build: (partial: string) => Promise<void>, complete: () => Promise<boolean>): Promise<void> {
  const partial = `${target}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await build(partial);
    if (await complete()) return;
    await rm(target, { recursive: true, force: true });
    await rename(partial, target);
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
}
