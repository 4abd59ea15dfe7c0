import { loadConfig } from '../config/index';
import { installHelmTools } from '../stack/helm-tools';

/**
 * `npm run helm:install`: builds Helm and fetches the schemas the chart's test validates against
 * (deploy/helm/crm-messaging), under TOOLS_DIR, when missing; prints where they are.
 */
async function main() {
  const config = loadConfig();
  const tools = await installHelmTools(config.TOOLS_DIR, (line) => console.log(line));
  console.log(`helm: ${tools.helm}\nschemas: ${tools.schemas}`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
