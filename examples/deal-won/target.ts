import type { Config } from '../../src/config/index';
import { runningStack } from '../../src/stack/stack-lock';
import { dataPaths } from '../../src/paths';

export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';

/** Where the example finds the CRM's Temporal, and from what it learned it (named when it cannot connect). */
export interface CrmTarget {
  address: string;
  nexusEndpoint: string;
  source: string;
}

/**
 * TEMPORAL_ADDRESS (and NEXUS_ENDPOINT) when set; else what the `npm start` running on DATA_DIR
 * recorded in its stack lock; else Temporal's default local address.
 */
export async function crmTarget(config: Config, env: NodeJS.ProcessEnv = process.env): Promise<CrmTarget> {
  const lockFile = dataPaths(config.DATA_DIR).stackLock;
  const running = config.TEMPORAL_ADDRESS ? undefined : await runningStack(dataPaths(config.DATA_DIR));
  const nexusEndpoint = env.NEXUS_ENDPOINT ? config.NEXUS_ENDPOINT : (running?.temporal?.nexusEndpoint ?? config.NEXUS_ENDPOINT);
  if (config.TEMPORAL_ADDRESS) return { address: config.TEMPORAL_ADDRESS, nexusEndpoint, source: 'TEMPORAL_ADDRESS' };
  if (running?.temporal) return { address: running.temporal.address, nexusEndpoint, source: `the npm start running on ${lockFile} (pid ${running.pid})` };
  return { address: DEFAULT_TEMPORAL_ADDRESS, nexusEndpoint, source: `the default: no npm start is running on ${lockFile} and TEMPORAL_ADDRESS is not set` };
}

/** A connection failure that names the address tried, where it came from, and what to do. */
export function unreachable(target: CrmTarget, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return new Error(
    `Cannot reach Temporal at ${target.address} (${target.source}): ${reason}. ` +
      'Start the stack with `npm start` (on the same DATA_DIR), or set TEMPORAL_ADDRESS to its Temporal address.',
  );
}
