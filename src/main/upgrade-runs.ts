import { loadConfig } from '../config/index';
import { configureLogging } from '../logger';
import { upgradeRuns } from '../worker/run-upgrade';
import { exitWithCodeOf } from './exit-code';
import { openServices } from './services';

/**
 * `npm run upgrade-runs` (and `node dist/main/upgrade-runs.js` in the image): upgrades the runs of a
 * database and namespace from before this build's workflow generation, as a worker's first start does
 * by itself — the earlier runs end, their clocks start again from the rows (docs/operations.md,
 * "Upgrading from a build before Worker Versioning"). Needs DATABASE_URL and TEMPORAL_ADDRESS; prints
 * what it did, or that there was nothing to do.
 */
async function upgradeRunsCommand(): Promise<number> {
  const config = loadConfig();
  configureLogging(config);
  if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS) throw new Error('npm run upgrade-runs needs DATABASE_URL and TEMPORAL_ADDRESS (npm start upgrades by itself)');
  const services = await openServices(config);
  try {
    const report = await upgradeRuns(services);
    console.log(JSON.stringify(report));
    return 0;
  } finally {
    await services.stop();
  }
}

exitWithCodeOf(upgradeRunsCommand);
