import { Worker } from '@temporalio/worker';

/*
 * A stack starts one worker per task queue, five, and the SDK reads and parses the workflow bundle for
 * each (3.8 MB read, its 2.4 MB source map parsed, the script run in a context of its own): 0.6 s of a
 * small stack file's 4.5 s (docs/design.md, "A stack file's fixed cost"). The workers of a file share the
 * first parse of a path instead; each file loads the SDK afresh, so a parse never outlives its file. The
 * SDK's method is internal: without it (another release), every worker parses the bundle again.
 */
type GetOrCreateBundle = (options: { workflowBundle?: { codePath?: string } }, logger: unknown) => Promise<unknown>;

const sdk = Worker as unknown as { getOrCreateBundle?: GetOrCreateBundle };
const parse = sdk.getOrCreateBundle?.bind(Worker);
const parsed = new Map<string, Promise<unknown>>();

if (parse) {
  sdk.getOrCreateBundle = (options, logger) => {
    const path = options.workflowBundle?.codePath;
    if (!path) return parse(options, logger);
    if (!parsed.has(path)) parsed.set(path, parse(options, logger));
    return parsed.get(path)!;
  };
}
