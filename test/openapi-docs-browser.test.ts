import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { renderDocs } from '../scripts/docs-browser';
import { openApiDocument } from '../src/api/openapi/document';
import { startTestStack, type TestStack } from './support/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

test('/docs renders every documented operation in a real browser, offline, without errors', async () => {
  const screenshot = path.join(mkdtempSync(path.join(tmpdir(), 'docs-')), 'docs.png');
  const rendered = await renderDocs(new URL(stack.baseUrl).origin, screenshot);

  const documented = Object.entries<Record<string, any>>(openApiDocument.paths).flatMap(([template, item]) =>
    ['get', 'post', 'put', 'patch', 'delete'].filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${template} ${item[m].summary}`),
  );
  expect(rendered.map((op) => `${op.method.toUpperCase()} ${op.path} ${op.summary}`).sort()).toEqual(documented.sort());
  expect(rendered.map((op) => op.summary)).toContain('Assign agents to a client');
  expect(readFileSync(screenshot).subarray(1, 4).toString()).toBe('PNG');
});
