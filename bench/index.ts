import type { ScenarioResult } from './report';
import * as accept from './scenarios/accept';
import * as assign from './scenarios/assign';
import * as isolation from './scenarios/isolation';
import * as lateness from './scenarios/lateness';
import * as scale from './scenarios/scale';
import * as scaleOut from './scenarios/scale-out';

/*
 * `npm run bench -- <scenario> [arguments]`: one scenario on a fresh embedded stack, printing its
 * baseline (raw Temporal on the same server, a bare route, one insert), the project's figure and the
 * ratio, measured in the same run. The machine is shared: compare ratios, not absolute figures.
 */
const scenarios: Record<string, { usage: string; run: (args: string[]) => Promise<ScenarioResult> }> = {
  lateness: { usage: '[messages=1000] [leadSeconds=auto] [concurrency=10]', run: lateness.run },
  scale: { usage: '[pendingMessages=100000] [activeAssignments=100000] [concurrency=16] [agentsPerRequest=10]', run: scale.run },
  isolation: { usage: '[burstMessages=10000] [burstConcurrency=20] [assignEveryMs=250] [messagePlaces=default]', run: isolation.run },
  'scale-out': { usage: '[messages=1000] [assignEveryMs=250]', run: scaleOut.run },
  accept: { usage: '[requests=300] [concurrency=10] [rounds=3]', run: accept.run },
  assign: { usage: '[requests=200] [concurrency=1] [rounds=3]', run: assign.run },
};

const [name, ...args] = process.argv.slice(2);
const scenario = scenarios[name ?? ''];
if (!scenario) {
  console.error(`usage: npm run bench -- <scenario> [arguments]\n${Object.entries(scenarios).map(([n, s]) => `  ${n} ${s.usage}`).join('\n')}`);
  process.exit(2);
}
// Each scenario prints its result itself, before it stops its stack (stopping may be slow, or fail).
scenario.run(args).then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
