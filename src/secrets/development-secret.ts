import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * A development secret kept under the data directory (mode 0600), so what it signs or encrypts stays
 * valid across restarts: read when the file exists, else generated and written. Never used in production.
 */
export async function developmentSecret(file: string, generate = () => randomBytes(32).toString('base64url')): Promise<string> {
  const existing = await readFile(file, 'utf8').catch(() => '');
  if (existing.trim()) return existing.trim();
  const secret = generate();
  await mkdir(dirname(file), { recursive: true });
  // `wx`: two processes starting at once on one data directory agree on the first one's secret.
  const written = await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' }).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') return false;
      throw error;
    },
  );
  return written ? secret : readWhenWritten(file);
}

/** The other process's secret, once it has written it (its file exists from the moment it is opened). */
async function readWhenWritten(file: string): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const text = (await readFile(file, 'utf8')).trim();
    if (text) return text;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${file} is empty: delete it to have a new development secret generated`);
}
