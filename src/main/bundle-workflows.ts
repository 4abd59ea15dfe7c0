import { writeFile } from 'node:fs/promises';
import { bundleWorkflowCode } from '@temporalio/worker';
import { PREBUILT_WORKFLOW_BUNDLE, WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../paths';

/**
 * `npm run build`'s last step: the workflows and their interceptors bundled once, next to the compiled
 * code, so a worker starts without running webpack (about 5 s of every start on a small machine).
 */
async function main() {
  const silent = () => undefined;
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: { log: silent, trace: silent, debug: silent, info: silent, warn: console.warn, error: console.error },
  });
  await writeFile(PREBUILT_WORKFLOW_BUNDLE, code);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
