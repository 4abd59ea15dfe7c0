import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/index';
import { freePort } from '../src/net/free-port';
import { startEmbeddedPostgres } from '../src/stack/postgres';
import { startDevServer } from '../src/stack/temporal-server';
import { PROJECT_ROOT } from '../src/paths';

/*
 * `npm start` until the API answers /readyz, on a data directory it used before and with nothing
 * changed since the last build, beside its floor: PostgreSQL and the Temporal dev server alone, started
 * side by side on the same kind of data directory, in the same run.
 */

async function floor(dataDir: string): Promise<number> {
  const started = performance.now();
  const [postgres, temporal] = await Promise.all([
    startEmbeddedPostgres({ dataDir: join(dataDir, 'postgres') }).then(async (postgres) => (await postgres.appDatabase('crm'), postgres)),
    startDevServer(loadConfig(), { dbFilename: join(dataDir, 'temporal.sqlite'), uiPort: await freePort(0) }),
  ]);
  const ms = performance.now() - started;
  await temporal.stop();
  await postgres.stop();
  return ms;
}

async function npmStart(dataDir: string): Promise<number> {
  const port = await freePort(0);
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), TEMPORAL_PORT: String(await freePort(0)), TEMPORAL_UI_PORT: String(await freePort(0)), WORKER_HTTP_PORT: String(await freePort(0)) };
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false);
      if (ready) return performance.now() - started;
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
}

(async () => {
  const rounds = Number(process.argv[2] ?? 3);
  const dir = await mkdtemp(join(tmpdir(), 'crm-bench-start-'));
  await chmod(dir, 0o755); // PostgreSQL runs as its own user when the bench runs as root
  try {
    await npmStart(join(dir, 'stack')); // builds if needed, creates the data directory
    await floor(join(dir, 'floor')); // creates the floor's data directory
    const project: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < rounds; i++) {
      baseline.push(await floor(join(dir, 'floor')));
      project.push(await npmStart(join(dir, 'stack')));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const result = {
      rounds,
      baselineMs: { median: Math.round(median(baseline)), all: baseline.map(Math.round), what: 'PostgreSQL + Temporal dev server alone, in parallel' },
      projectMs: { median: Math.round(median(project)), all: project.map(Math.round), what: 'npm start (nothing changed) until /readyz answers 200' },
      ratio: +(median(project) / median(baseline)).toFixed(2),
      goalMs: 5000,
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  process.exit(0);
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
