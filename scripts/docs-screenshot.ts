import path from 'node:path';
import { renderDocs } from './docs-browser';

/**
 * Loads a running API's /docs in headless chromium and saves what it shows:
 *   npm run docs:screenshot -- http://localhost:3000 [docs.png]
 * It starts nothing itself; exits 1 when the page does not render cleanly.
 */
async function main() {
  const [baseUrl, output = 'docs-screenshot.png'] = process.argv.slice(2);
  if (!baseUrl) throw new Error('usage: npm run docs:screenshot -- <base URL, e.g. http://localhost:3000> [output.png]');
  const operations = await renderDocs(baseUrl, output);
  for (const op of operations) console.log(`${op.method.padEnd(7)} ${op.path}  ${op.summary}`);
  console.log(`${operations.length} operations rendered; screenshot in ${path.resolve(output)}`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
