import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/*
 * Bodies shaped to make a naive parser quadratic, and an attacker that posts them, for the bodies bench
 * and the test of the doors that read a body before they know the caller (api/in-process/pathological-bodies).
 */

export const MB = 1_000_000;

const fill = (unit: string, bytes: number) => unit.repeat(Math.floor(bytes / unit.length));

/** Each shape at about `bytes`. */
export const shapesOf = (bytes: number): Record<string, string> => ({
  'open <OrganizationId tags': fill('<OrganizationId ', bytes),
  'open <Notification> tags': fill('<Notification>', bytes),
  'nested tags': fill('<a>', bytes),
  'a huge attribute': `<a b="${'x'.repeat(bytes - 10)}"/>`,
  'nested JSON arrays': fill('[', bytes),
  'nested JSON objects': fill('{"a":', bytes),
  'a form of one key repeated': fill('a=&', bytes),
  'a form of many keys': Array.from({ length: Math.floor(bytes / 10) }, (_, i) => `k${i}=v`).join('&').slice(0, bytes),
});

export interface AttackRequest {
  url: string;
  /** The door's headers for this body (a signature is over the body sent). */
  headers: (body: string) => Record<string, string>;
  body: string;
}

/** Posts the requests one after the other, in a process of its own (as an attacker's would be), until killed. */
const ATTACKER = `
const { readFileSync } = require('node:fs');
const { bodies, requests } = JSON.parse(readFileSync(process.argv[1], 'utf8'));
(async () => {
  for (let i = 0; ; i++) {
    const { url, headers, body } = requests[i % requests.length];
    try { const r = await fetch(url, { method: 'POST', headers, body: bodies[body] }); await r.arrayBuffer(); } catch {}
  }
})();
`;

/**
 * The requests written to a file in `dir` (each distinct body once), then `attack(file)` runs an attacker
 * on them until `stop()`. `plain`: each body replaced by as many bytes of `x`, the same doors at the same pace.
 */
export async function attackFile(dir: string, name: string, requests: AttackRequest[], plain: boolean): Promise<string> {
  const bodies: string[] = [];
  const indexed = requests.map(({ url, headers, body: shaped }) => {
    const body = plain ? 'x'.repeat(shaped.length) : shaped;
    if (!bodies.includes(body)) bodies.push(body);
    return { url, headers: headers(body), body: bodies.indexOf(body) };
  });
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify({ bodies, requests: indexed }));
  return file;
}

export interface Attack {
  /** Whether the attacker still runs. */
  running(): boolean;
  stop(): void;
}

export function attack(file: string): Attack {
  const attacker = spawn(process.execPath, ['-e', ATTACKER, file], { stdio: 'ignore' });
  return { running: () => attacker.exitCode === null, stop: () => attacker.kill() };
}
