import type { OpenApiObject } from '../../src/api/openapi/components';

/*
 * What a reader of the served document can rely on, apart from prose: every operation, its parameters,
 * its status codes, the names of its examples, and the properties (with the required ones marked `*`)
 * of every request and response schema. openapi-surface.test.ts compares it with a fixture taken
 * before the document was generated from the contracts.
 */

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function resolve(doc: OpenApiObject, node: any): any {
  let seen = 0;
  while (node && typeof node === 'object' && typeof node.$ref === 'string' && seen++ < 20) {
    node = node.$ref.slice(2).split('/').reduce((at: any, key: string) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return node;
}

/** `a`, `*b` (required), `c.d`, `e[].f`: the properties a schema describes, through references and combinators. */
export function propertyPaths(doc: OpenApiObject, schema: any, prefix = '', out = new Set<string>(), depth = 0): Set<string> {
  const node = resolve(doc, schema);
  if (!node || typeof node !== 'object' || depth > 12) return out;
  const required = new Set<string>(Array.isArray(node.required) ? node.required : []);
  for (const [name, inner] of Object.entries<any>(node.properties ?? {})) {
    out.add(`${required.has(name) ? '*' : ''}${prefix}${name}`);
    propertyPaths(doc, inner, `${prefix}${name}.`, out, depth + 1);
  }
  if (node.items) propertyPaths(doc, node.items, `${prefix.replace(/\.$/, '')}[].`, out, depth + 1);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const branches: any[] = node[key] ?? [];
    const values = branches.filter((branch) => !(branch?.type === 'null' && Object.keys(branch).length === 1));
    // `anyOf: [schema, {type: null}]` is a nullable schema (zod's spelling of `type: [..., 'null']`), not a choice.
    if (values.length === 1 && branches.length === 2) propertyPaths(doc, values[0], prefix, out, depth + 1);
    else for (const branch of branches) propertiesOnly(doc, branch, prefix, out, depth + 1);
  }
  return out;
}

/** A combinator's branch adds properties; its `required` says which branch applies, not what the object always has. */
function propertiesOnly(doc: OpenApiObject, schema: any, prefix: string, out: Set<string>, depth: number): void {
  const paths = propertyPaths(doc, schema, prefix, new Set(), depth);
  for (const path of paths) out.add(path.replace(/^\*/, ''));
}

function examples(media: any): string[] {
  return [...(media?.example !== undefined ? ['(example)'] : []), ...Object.keys(media?.examples ?? {})];
}

function contentSurface(doc: OpenApiObject, content: any): Record<string, { examples: string[]; properties: string[] }> {
  return Object.fromEntries(
    Object.entries<any>(content ?? {}).map(([type, media]) => [type, { examples: examples(media), properties: [...propertyPaths(doc, media.schema)].sort() }]),
  );
}

function operationSurface(doc: OpenApiObject, pathItem: any, operation: any) {
  const parameters = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map((p) => resolve(doc, p)).map((p) => `${p.in}:${p.name}`);
  const body = resolve(doc, operation.requestBody);
  return {
    parameters: parameters.sort(),
    ...(body && { requestBody: contentSurface(doc, body.content) }),
    responses: Object.fromEntries(
      Object.entries<any>(operation.responses ?? {}).map(([status, response]) => {
        const r = resolve(doc, response);
        return [status, { headers: Object.keys(r.headers ?? {}).sort(), content: contentSurface(doc, r.content) }];
      }),
    ),
  };
}

export function documentSurface(doc: OpenApiObject) {
  const operations: Record<string, unknown> = {};
  for (const [kind, items] of [['path', doc.paths], ['webhook', doc.webhooks ?? {}]] as const) {
    for (const [template, pathItem] of Object.entries<any>(items)) {
      for (const method of METHODS.filter((m) => pathItem[m])) {
        operations[`${kind} ${method.toUpperCase()} ${template} (${pathItem[method].operationId})`] = operationSurface(doc, pathItem, pathItem[method]);
      }
    }
  }
  const schemas = Object.fromEntries(Object.keys(doc.components.schemas).sort().map((name) => [name, [...propertyPaths(doc, doc.components.schemas[name])].sort()]));
  return { operations: Object.fromEntries(Object.entries(operations).sort(([a], [b]) => a.localeCompare(b))), schemas };
}

/** The surface as lines (`operation | responses.200.content.application/json.properties | message`), for a set comparison. */
export function surfaceLines(node: unknown, prefix = ''): string[] {
  if (Array.isArray(node)) return node.length === 0 ? [`${prefix}(none)`] : node.map((item) => `${prefix}${String(item)}`);
  if (node && typeof node === 'object') return Object.entries(node).flatMap(([key, value]) => surfaceLines(value, `${prefix}${key} | `));
  return [`${prefix}${String(node)}`];
}
