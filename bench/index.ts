import { printSideBySide, type ScenarioResult } from './report';
import * as accept from './scenarios/accept';
import * as assign from './scenarios/assign';
import * as bodies from './scenarios/bodies';
import * as campaign from './scenarios/campaign';
import * as conversations from './scenarios/conversations';
import * as crm from './scenarios/crm';
import * as fairness from './scenarios/fairness';
import * as isolation from './scenarios/isolation';
import * as lateness from './scenarios/lateness';
import * as reconcile from './scenarios/reconcile';
import * as routing from './scenarios/routing';
import * as scale from './scenarios/scale';
import * as scaleOut from './scenarios/scale-out';
import * as startCampaign from './scenarios/start-campaign';

/*
 * `npm run bench -- <scenario> [arguments]`: one scenario on a fresh embedded stack, printing its
 * baseline (raw Temporal on the same server, a bare route, one insert), the project's figure and the
 * ratio, measured in the same run; `--engine both` runs it on the dev server, then on the server engine. The machine is shared: compare ratios, not absolute figures.
 */
const scenarios: Record<string, { usage: string; run: (args: string[]) => Promise<ScenarioResult> }> = {
  lateness: { usage: '[messages=1000] [leadSeconds=auto] [concurrency=10]', run: lateness.run },
  scale: { usage: '[pendingMessages=100000] [activeAssignments=100000] [concurrency=16] [agentsPerRequest=10]', run: scale.run },
  fairness: { usage: '[sends=200] [floodConcurrency=100]', run: fairness.run },
  bodies: { usage: '[samples=50] [rounds=3]', run: bodies.run },
  isolation: { usage: '[burstMessages=10000] [burstConcurrency=20] [assignEveryMs=250] [messagePlaces=default]', run: isolation.run },
  'scale-out': { usage: '[messages=1000] [assignEveryMs=250]', run: scaleOut.run },
  accept: { usage: '[requests=300] [concurrency=10] [rounds=3]', run: accept.run },
  assign: { usage: '[requests=200] [concurrencies=1,10] [rounds=3]', run: assign.run },
  reconcile: { usage: '[recentMessages=10000] [requests=300]', run: reconcile.run },
  routing: { usage: '[requests=200] [rounds=3]', run: routing.run },
  campaign: { usage: '[perMessage=1000] [bulk=10000] [paced=10000] [rate=100]', run: campaign.run },
  crm: { usage: '[contacts=1000] [agents=10]', run: crm.run },
  conversations: { usage: '[conversations=100000] [requests=300] [rounds=3]', run: conversations.run },
  'start-campaign': { usage: '[recipients=1000] [rounds=2] [variants=bench,start,start-warn] [mode=batch|single]', run: startCampaign.run },
};

/** `--engine dev|server|both` (default dev) taken out of the arguments; the rest are the scenario's. */
function parseEngine(argv: string[]): { engines: ('dev' | 'server')[]; rest: string[] } | undefined {
  const at = argv.findIndex((a) => a === '--engine' || a.startsWith('--engine='));
  if (at < 0) return { engines: ['dev'], rest: argv };
  const value = argv[at].includes('=') ? argv[at].split('=')[1] : argv[at + 1];
  const rest = argv.filter((_, i) => i !== at && !(i === at + 1 && !argv[at].includes('=')));
  if (value === 'both') return { engines: ['dev', 'server'], rest };
  if (value === 'dev' || value === 'server') return { engines: [value], rest };
  return undefined;
}

const parsed = parseEngine(process.argv.slice(2));
const [name, ...args] = parsed?.rest ?? [];
const scenario = scenarios[name ?? ''];
if (!scenario || !parsed) {
  console.error(`usage: npm run bench -- <scenario> [arguments] [--engine dev|server|both]\n${Object.entries(scenarios).map(([n, s]) => `  ${n} ${s.usage}`).join('\n')}`);
  process.exit(2);
}
// Each scenario prints its result itself, before it stops its stack (stopping may be slow, or fail).
// Each engine on a fresh stack, one after the other: the stack reads TEMPORAL_ENGINE when it starts.
async function runOnEngines(run: (args: string[]) => Promise<ScenarioResult>, engines: ('dev' | 'server')[]) {
  const results: ScenarioResult[] = [];
  for (const engine of engines) {
    process.env.TEMPORAL_ENGINE = engine;
    results.push({ ...(await run(args)), engine });
  }
  if (results.length > 1) printSideBySide(results);
}
runOnEngines(scenario.run, parsed.engines).then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
