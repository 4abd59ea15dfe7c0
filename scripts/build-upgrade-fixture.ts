import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { bundleWorkflowCode } from '@temporalio/worker';

/*
 * Builds the workflow bundle of another commit (by default the last one before workflow generation 2) as the
 * upgrade test's fixture (test/operations/in-process/upgrade-runs.ts): that commit's src/ taken from git into a
 * temporary folder, bundled as `npm run build` bundles the workflows and their interceptors, gzipped into
 * test/fixtures/upgrade/workflows-<commit>.js.gz. Run once, by hand: `npx tsx scripts/build-upgrade-fixture.ts [commit]`.
 */
const ROOT = join(__dirname, '..');
const commit = process.argv[2] ?? '16464f1';

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'crm-upgrade-fixture-'));
  try {
    execFileSync('sh', ['-c', `git -C "${ROOT}" archive ${commit} src | tar -x -C "${dir}"`], { stdio: 'inherit' });
    // The commit's code resolves its packages in this checkout's node_modules (the same locked versions).
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    const silent = () => undefined;
    const { code } = await bundleWorkflowCode({
      workflowsPath: join(dir, 'src/workflows/index.ts'),
      workflowInterceptorModules: [join(dir, 'src/telemetry/workflow-interceptors.ts'), join(dir, 'src/workflows/interceptors.ts')],
      logger: { log: silent, trace: silent, debug: silent, info: silent, warn: console.warn, error: console.error },
    });
    mkdirSync(join(ROOT, 'test/fixtures/upgrade'), { recursive: true });
    const out = join(ROOT, 'test/fixtures/upgrade', `workflows-${commit}.js.gz`);
    const small = withoutSourceMap(code);
    writeFileSync(out, gzipSync(small, { level: 9 }));
    console.log(`${out}: ${small.length} bytes of bundle`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The bundle with an empty source map in place of its own (two thirds of its size): the worker needs one, not its mappings. */
function withoutSourceMap(code: string): string {
  const at = code.lastIndexOf('//# sourceMappingURL=data:');
  const empty = Buffer.from(JSON.stringify({ version: 3, file: 'workflows.js', sources: [], names: [], mappings: '' })).toString('base64');
  return `${code.slice(0, at)}//# sourceMappingURL=data:application/json;base64,${empty}\n`;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
