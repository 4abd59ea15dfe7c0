import { execFile } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { codecLine } from '../../src/stack/codec-line';
import { testDir } from '../support/temp-dir';

/* npm start's Codec line, pasted into a shell: the CLI it names gets this stack's address, namespace, codec and secret. */

/** Runs `line` in bash with a PATH that has no `temporal`; returns the arguments the named CLI received. */
async function pasted(line: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)('bash', ['-c', line.replace('WORKFLOW_ID', 'message/acme/m-1')], { cwd: tmpdir(), env: { PATH: '/usr/bin:/bin' } });
  return stdout.split('\n').filter(Boolean);
}

test('the line runs as pasted: the CLI by its path, --address and --namespace of this stack, the secret read from its file', async () => {
  const dir = join(await testDir('crm-codec-line-'), "a data dir's");
  await mkdir(join(dir, 'bin'), { recursive: true });
  const cli = join(dir, 'bin', 'temporal');
  await writeFile(cli, '#!/bin/sh\nfor arg in "$@"; do echo "$arg"; done\n');
  await chmod(cli, 0o755);
  await writeFile(join(dir, 'dev-codec-token'), 's3cret\n');

  const line = codecLine({ url: 'http://localhost:9464/codec', secret: { file: join(dir, 'dev-codec-token') }, cli, address: '127.0.0.1:17233', namespace: 'crm-dev' });
  expect(line).not.toContain('s3cret');
  expect(await pasted(line)).toEqual([
    'workflow', 'show', '--address', '127.0.0.1:17233', '--namespace', 'crm-dev',
    '--codec-endpoint', 'http://localhost:9464/codec', '--codec-auth', 'Bearer s3cret', '-w', 'message/acme/m-1',
  ]);
  // The default namespace needs no flag; CODEC_AUTH_TOKEN is named, not printed.
  expect(codecLine({ url: 'http://localhost:9464/codec', secret: { env: 'CODEC_AUTH_TOKEN' }, cli, address: '127.0.0.1:7233', namespace: 'default' })).toBe(
    `'${cli.replace(/'/g, `'\\''`)}' workflow show --address 127.0.0.1:7233 --codec-endpoint http://localhost:9464/codec --codec-auth "Bearer $CODEC_AUTH_TOKEN" -w WORKFLOW_ID`,
  );
});

test('without a CLI on the machine the line says how to install one; without a codec secret, how to turn the codec on', () => {
  expect(codecLine({ url: 'http://localhost:9464/codec', secret: { env: 'CODEC_AUTH_TOKEN' }, cli: undefined, address: '127.0.0.1:7233', namespace: 'default' })).toMatch(
    /^temporal workflow show .* -w WORKFLOW_ID {3}\(no Temporal CLI on this machine: npm run temporal:install installs one\)$/,
  );
  expect(codecLine({ url: 'http://localhost:9464/codec', secret: undefined, cli: '/x/temporal', address: '127.0.0.1:7233', namespace: 'default' })).toBe(
    'off: set CODEC_AUTH_TOKEN (production has no default secret) or CODEC_JWT_AUDIENCE',
  );
});
