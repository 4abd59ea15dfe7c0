import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

import { CHROMIUM_PATH } from './browser-path';

export { CHROMIUM_PATH };
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface RenderedOperation {
  method: string;
  path: string;
  summary: string;
}

/**
 * Opens `${baseUrl}/docs` in headless chromium, waits until Swagger UI has rendered the operations and
 * expanded the assign-agents one, saves a full-page PNG, and returns what it showed. Throws on a page
 * error, a console error (a Content-Security-Policy refusal is one), a failed request, or any request
 * to another host.
 */
export async function renderDocs(baseUrl: string, screenshotPath: string, timeoutMs = 30_000): Promise<RenderedOperation[]> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No chromium at ${CHROMIUM_PATH}: \`npm test\` installs Debian's when it runs as root with apt-get; else install it with \`apt-get update && apt-get install -y chromium\` (or set CHROMIUM_PATH)`);
  }
  const origin = new URL(baseUrl).origin;
  const problems: string[] = [];
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: timeoutMs });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(timeoutMs);
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`));
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol !== 'data:' && url.origin !== origin) problems.push(`request to another host: ${request.url()}`);
    });

    const response = await page.goto(`${origin}/docs`);
    if (response?.status() !== 200) throw new Error(`GET /docs answered ${response?.status()}`);
    const assign = page.locator('.opblock-summary-path[data-path$="/assign-agents"]');
    await assign.waitFor({ state: 'visible' });
    await assign.click();
    // The first documented 400 example, shown once the operation is expanded.
    await page.getByText('Missing or invalid agents array').first().waitFor({ state: 'visible' });

    const operations = await page.$$eval('.opblock-summary', (blocks) =>
      blocks.map((block) => ({
        method: block.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '',
        path: block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '',
        summary: block.querySelector('.opblock-summary-description')?.textContent?.trim() ?? '',
      })),
    );
    // Late errors (a lazily loaded asset, a refused style) surface within a moment.
    await page.waitForTimeout(500);
    await page.screenshot({ path: screenshotPath, fullPage: true });
    if (problems.length > 0) throw new Error(`/docs did not render cleanly:\n  ${problems.join('\n  ')}`);
    return operations;
  } finally {
    await browser.close();
  }
}
