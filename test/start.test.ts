import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { freePort } from '../src/infra/ports';
import { eventually } from './support/stack';

/*
 * `npm start` as a user runs it: the whole stack from one command, stopped by SIGTERM, started again
 * on the same data directory.
 */
const root = join(__dirname, '..');
let dataDir: string;
let ports: { api: number; temporal: number; ui: number };

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'crm-start-'));
  ports = { api: await freePort(), temporal: await freePort(), ui: await freePort() };
});

function startStack(): { child: ChildProcess; output: () => string; ready: Promise<void>; exited: Promise<number | null> } {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', DATA_DIR: dataDir, PORT: String(ports.api), TEMPORAL_PORT: String(ports.temporal), TEMPORAL_UI_PORT: String(ports.ui) };
  for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'JWT_SECRET', 'JWT_PUBLIC_KEY', 'NODE_ENV']) delete env[name];
  const child = spawn(join(root, 'node_modules/.bin/tsx'), ['src/start.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = eventually(async () => output.includes('Ctrl-C stops everything'), 120_000, 250).then(() => undefined);
  return { child, output: () => output, ready, exited };
}

async function api(path: string, token: string, init: RequestInit = {}) {
  const res = await fetch(`http://127.0.0.1:${ports.api}/ext/v2/acme${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
  return { status: res.status, body: (await res.json()) as any };
}

test('npm start runs the whole stack, stops cleanly on SIGTERM and resumes on the same data', async () => {
  const first = startStack();
  try {
    await Promise.race([first.ready, first.exited.then((code) => Promise.reject(new Error(`exited ${code}: ${first.output()}`)))]);
    expect(first.output()).toContain(`http://localhost:${ports.api}/ext/v2/{businessname}`);
    expect(first.output()).toContain(`Temporal UI  http://127.0.0.1:${ports.ui}`);
    expect((await fetch(`http://127.0.0.1:${ports.api}/readyz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ports.ui}/`)).status).toBe(200);

    const secret = (await readFile(join(dataDir, 'dev-jwt-secret'), 'utf8')).trim();
    const token = jwt.sign({}, secret, { algorithm: 'HS256', subject: 'user-1', expiresIn: '1h' });
    expect((await api('/clients', token, { method: 'POST', body: JSON.stringify({ _id: 'c1' }) })).status).toBe(201);
    expect((await api('/agents', token, { method: 'POST', body: JSON.stringify({ _id: 'a1' }) })).status).toBe(201);
    const assigned = await api('/clients/c1/assign-agents', token, { method: 'POST', body: JSON.stringify({ agents: [{ agent: 'a1' }] }) });
    expect(assigned.status).toBe(200);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.output()).not.toMatch(/database system is shutting down|Error:/);

    const second = startStack();
    try {
      await second.ready;
      const listed = await api('/clients/c1/agents', token);
      expect(listed.status).toBe(200);
      expect(listed.body.assignments).toEqual([
        expect.objectContaining({ agent: 'a1', status: 'active', dt_until: '2143-06-23T00:00:00.000Z', workflow_id: 'assignment/acme/c1/a1/user-1' }),
      ]);
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    }
  } finally {
    if (first.child.exitCode === null) first.child.kill('SIGKILL');
  }
}, 300_000);
