/*
 * A rollout under load (docs/operations.md, "Deploying a new worker build"): a second build, whose client
 * and message runs would fail the first's histories on replay, polls beside the first and becomes current.
 * Runs begun on the first finish there, the clients' runs move to the second, nothing is sent twice or
 * lost, every assignment expires once, and the first version drains, so its worker can stop.
 */
import { rolloutTests } from './rollout';

rolloutTests(() => undefined);
