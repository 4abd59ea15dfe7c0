/*
 * npm start after a change of workflow code (docs/operations.md, "Deploying a new worker build"), on npm start's
 * engine, the dev server: the build before keeps a worker, from the bundle npm start kept, until its last run ends.
 * The rollout under load, how production deploys, runs on the server engine (stack/engine-server.test.ts).
 */
import { rolloutTests } from './rollout';

rolloutTests(() => undefined, 'npm start after a change');
