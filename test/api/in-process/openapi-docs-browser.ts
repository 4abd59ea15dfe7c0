import { readFileSync } from 'node:fs';
import path from 'node:path';
import { renderDocs } from '../../../scripts/docs-browser';
import { openApiDocument } from '../../../src/api/openapi/document';
import { startTestStack, type TestStack } from '../../support/stack';
import { testDirSync } from '../../support/temp-dir';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

test('/docs renders every documented operation in a real browser, offline, without errors', async () => {
  const screenshot = path.join(testDirSync('docs-'), 'docs.png');
  const rendered = await renderDocs(new URL(stack.baseUrl).origin, screenshot);

  // The routes, and the outgoing requests of the `webhooks` section (listed by name: `POST event`).
  const operations = (items: Record<string, Record<string, any>>) =>
    Object.entries(items).flatMap(([name, item]) =>
      ['get', 'post', 'put', 'patch', 'delete'].filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${name} ${item[m].summary}`),
    );
  const documented = [...operations(openApiDocument.paths), ...operations((openApiDocument as { webhooks?: Record<string, Record<string, any>> }).webhooks ?? {})];
  expect(rendered.map((op) => `${op.method.toUpperCase()} ${op.path} ${op.summary}`).sort()).toEqual(documented.sort());
  expect(rendered.map((op) => op.summary)).toContain('Assign agents to a client');
  expect(readFileSync(screenshot).subarray(1, 4).toString()).toBe('PNG');
});
