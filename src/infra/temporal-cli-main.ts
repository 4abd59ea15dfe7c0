import { join } from 'node:path';
import { PROJECT_ROOT } from './migrate';
import { findTemporalCli, findTimeSkippingTestServer } from './temporal-cli';

/** `npm run temporal:install`: finds or installs the Temporal CLI and the time-skipping test server. */
async function main() {
  const toolsDir = join(process.env.DATA_DIR ?? join(PROJECT_ROOT, '.data'), 'tools');
  console.log(`temporal: ${(await findTemporalCli(toolsDir)) ?? 'not found; the SDK will download it'}`);
  console.log(`temporal-test-server: ${(await findTimeSkippingTestServer(toolsDir)) ?? 'not found; the SDK will download it'}`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
