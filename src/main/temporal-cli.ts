import { loadConfig } from '../config/index';
import { findTemporalCli, findTimeSkippingTestServer } from '../stack/temporal-cli';

/** `npm run temporal:install`: finds or installs the Temporal CLI and the time-skipping test server. */
async function main() {
  const config = loadConfig();
  console.log(`temporal: ${(await findTemporalCli(config)) ?? 'not found; the SDK will download it'}`);
  console.log(`temporal-test-server: ${(await findTimeSkippingTestServer(config)) ?? 'not found; the SDK will download it'}`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
