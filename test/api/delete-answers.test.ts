import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../../src/api/openapi/document';
import { PROJECT_ROOT } from '../../src/paths';

/*
 * One rule for what a DELETE answers (docs/interface.md, "What a DELETE answers"): 204 with no body when
 * the resource is gone, 200 with the record when it stays, ended. Checked on every DELETE the OpenAPI
 * document describes (which test/api/in-process/openapi-document.ts holds to the routes' real answers), and
 * against the route table of docs/interface.md, so that a new DELETE cannot answer otherwise unnoticed.
 */
const deletes = Object.entries<Record<string, any>>(openApiDocument.paths).flatMap(([template, item]) =>
  item.delete ? [{ route: `DELETE ${template.replace('/ext/v2/{businessname}', '')}`, responses: item.delete.responses as Record<string, any> }] : [],
);

/** The route table's DELETE rows: `DELETE /clients/{_id}` → its answer's status. */
function documentedDeletes(): Map<string, string> {
  const text = readFileSync(join(PROJECT_ROOT, 'docs', 'interface.md'), 'utf8');
  const rows = [...text.matchAll(/^\| `DELETE ([^`]+)` \| (\d{3})/gm)];
  return new Map(rows.map(([, route, status]) => [`DELETE ${route.replace(/\[\?[^\]]*\]$/, '')}`, status]));
}

test('every DELETE answers 204 without a body, or 200 with a JSON body: never both, never another success', () => {
  expect(deletes.length).toBeGreaterThanOrEqual(9);
  const offending = deletes.flatMap(({ route, responses }) => {
    const successes = Object.keys(responses).filter((status) => /^2\d\d$/.test(status));
    if (successes.length !== 1) return [`${route}: ${successes.join(', ') || 'no success'}`];
    const [status] = successes;
    const content = responses[status].content;
    if (status === '204' && content === undefined) return [];
    if (status === '200' && content?.['application/json']) return [];
    return [`${route}: ${status} ${content ? 'with' : 'without'} a body`];
  });
  expect(offending).toEqual([]);
});

test('the route table of docs/interface.md gives each DELETE the answer the OpenAPI document does', () => {
  const documented = documentedDeletes();
  const differing = deletes
    .filter(({ route }) => !route.startsWith('DELETE /admin/'))
    .map(({ route, responses }) => ({ route, openapi: Object.keys(responses).find((status) => /^2\d\d$/.test(status)), docs: documented.get(route) }))
    .filter(({ openapi, docs }) => openapi !== docs);
  expect(differing).toEqual([]);
});
