/*
 * The HTTP door's entry point: what the composition root (src/main/services.ts) and the processes build the
 * API from. Nothing outside src/api imports any other module of it (test/project/structure.test.ts).
 */
export { createApp, type AppDeps } from './app';
export { httpMetrics, serveMetrics, type HttpMetrics } from './http/metrics';
export { listen } from './http/server';
