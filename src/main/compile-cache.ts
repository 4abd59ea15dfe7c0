import { enableCompileCache } from 'node:module';

/*
 * Imported first by each process's entry point: V8's compiled code for every module is kept on disk
 * (NODE_COMPILE_CACHE, else the system's temporary directory), so the next start compiles little. The
 * variable is set for what this process starts: the worker's workflow threads and the stack's processes.
 */
const { directory } = enableCompileCache();
if (directory) process.env.NODE_COMPILE_CACHE ??= directory;
