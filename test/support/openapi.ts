import Ajv2020, { type Options, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/api/openapi/document';

/** What a test saw on the wire. `path` may carry a query string; `headers`, when given, are checked too. */
export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  contentType?: string | null;
  body: unknown;
  headers?: Headers | Record<string, string | undefined>;
}

export class DocumentMismatch extends Error {
  override name = 'DocumentMismatch';
}

export const DOCUMENT_ID = 'https://crm-messaging.invalid/openapi.json';
/** The document's own fields, which are not JSON Schema keywords: ajv must accept them at the root and look no further. */
const OPENAPI_FIELDS = ['openapi', 'info', 'jsonSchemaDialect', 'servers', 'security', 'tags', 'paths', 'components', 'webhooks', 'externalDocs'];
export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Strict ajv for draft 2020-12 holding the document, so `#/components/...` references resolve in place. */
export function documentAjv(document: Record<string, any> = openApiDocument, options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, ...options });
  addFormats(ajv);
  ajv.addVocabulary(OPENAPI_FIELDS);
  ajv.addSchema(document, DOCUMENT_ID);
  return ajv;
}

export const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
export const pointerOf = (...parts: (string | number)[]) => `#/${parts.map((p) => escapePointer(String(p))).join('/')}`;

/** The value at a `#/a/b` pointer of the document, or undefined. */
export function resolvePointer(document: Record<string, any>, pointer: string): any {
  if (!pointer.startsWith('#/')) return undefined;
  let value: any = document;
  for (const raw of pointer.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return undefined;
    value = value[part];
  }
  return value;
}

/** Follows `$ref`s of OpenAPI objects (responses, headers, parameters) to the object and its pointer. */
export function follow(document: Record<string, any>, value: any, pointer: string): { value: any; pointer: string } {
  for (let hops = 0; value && typeof value.$ref === 'string'; hops++) {
    if (hops > 10) throw new DocumentMismatch(`${pointer}: $ref loop`);
    pointer = value.$ref;
    value = resolvePointer(document, pointer);
    if (value === undefined) throw new DocumentMismatch(`${pointer} does not resolve`);
  }
  return { value, pointer };
}

function templateRegExp(template: string): RegExp {
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`);
}

/** The path template that matches `path`; literal segments win over parameters (`/a/b` over `/a/{x}`). */
export function findPathTemplate(path: string, document: Record<string, any> = openApiDocument): string | undefined {
  const bare = path.replace(/^https?:\/\/[^/]+/, '').split(/[?#]/)[0];
  const matches = Object.keys(document.paths).filter((template) => templateRegExp(template).test(bare));
  const parameters = (template: string) => (template.match(/\{/g) ?? []).length;
  return matches.sort((a, b) => parameters(a) - parameters(b))[0];
}

function headerOf(headers: ObservedResponse['headers'], name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase());
  return entry?.[1];
}

const excerpt = (value: unknown) => {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
};

/** Builds a validator over `document`; `validateAgainstDocument` below uses the served document. */
export function createResponseValidator(document: Record<string, any> = openApiDocument, precompiled: Record<string, ValidateFunction> = {}) {
  let built: Ajv2020 | undefined;
  const ajv = () => (built ??= documentAjv(document));
  const compiled = new Map<string, ValidateFunction>(Object.entries(precompiled));
  const validatorAt = (pointer: string) => {
    let validate = compiled.get(pointer);
    if (!validate) {
      validate = ajv().getSchema(`${DOCUMENT_ID}${pointer}`);
      if (!validate) throw new DocumentMismatch(`the document has no schema at ${pointer}`);
      compiled.set(pointer, validate);
    }
    return validate;
  };
  const errorsOf = (validate: ValidateFunction, what: string) => ajv().errorsText(validate.errors, { dataVar: what, separator: '; ' });

  return function validate(observed: ObservedResponse): void {
    const method = observed.method.toLowerCase();
    const seen = `${observed.method.toUpperCase()} ${observed.path} → ${observed.status}`;
    const fail = (why: string): never => {
      throw new DocumentMismatch(`${seen} disagrees with the OpenAPI document: ${why}\n  body: ${excerpt(observed.body)}`);
    };

    const template = findPathTemplate(observed.path, document);
    if (!template) return fail('no path of the document matches');
    const operation = document.paths[template][method];
    if (!METHODS.includes(method) || !operation) return fail(`${template} has no ${method.toUpperCase()} operation`);
    const where = `${method.toUpperCase()} ${template}`;

    const statusKey = [String(observed.status), `${String(observed.status)[0]}XX`, 'default'].find((key) => operation.responses?.[key]);
    if (!statusKey) return fail(`${where} documents no ${observed.status} response (it documents ${Object.keys(operation.responses ?? {}).join(', ')})`);
    const response = follow(document, operation.responses[statusKey], pointerOf('paths', template, method, 'responses', statusKey));

    for (const [name, declared] of Object.entries<any>(response.value.headers ?? {})) {
      if (!observed.headers) break;
      const header = follow(document, declared, `${response.pointer}/headers/${escapePointer(name)}`);
      const value = headerOf(observed.headers, name);
      if (value === undefined) {
        if (header.value.required) fail(`${where} ${statusKey} requires the header ${name}`);
        continue;
      }
      const type = header.value.schema?.type;
      const typed = type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      const validateHeader = validatorAt(`${header.pointer}/schema`);
      if (!validateHeader(typed)) fail(`header ${name}: ${errorsOf(validateHeader, name)}`);
    }

    const content: Record<string, unknown> | undefined = response.value.content;
    if (!content) {
      if (observed.body !== undefined && observed.body !== '') fail(`${where} ${statusKey} documents no body, but one came`);
      return;
    }
    const mediaType = (observed.contentType ?? '').split(';')[0].trim().toLowerCase();
    if (!Object.hasOwn(content, mediaType)) {
      return fail(`${where} ${statusKey} is documented as ${Object.keys(content).join(' or ')}, not ${mediaType || 'no content type'}`);
    }
    const validateBody = validatorAt(`${response.pointer}/content/${escapePointer(mediaType)}/schema`);
    if (!validateBody(observed.body)) fail(`${where} ${statusKey} ${mediaType}: ${errorsOf(validateBody, 'body')}`);
  };
}

/**
 * The validators the global setup compiled once for the run (`test/support/openapi-precompiled.ts`):
 * compiling them again in every file cost about 1 s of CPU per file. Empty outside a jest run.
 */
function precompiledValidators(): Record<string, ValidateFunction> {
  const path = process.env.TEST_OPENAPI_VALIDATORS;
  if (!path) return {};
  const compiled = require(path) as { pointers: string[] } & Record<string, ValidateFunction>;
  return Object.fromEntries(compiled.pointers.map((pointer, i) => [pointer, compiled[`v${i}`]]));
}

let served: ReturnType<typeof createResponseValidator> | undefined;

/** Throws a DocumentMismatch, saying where, when a response is not what the served document describes. */
export function validateAgainstDocument(observed: ObservedResponse): void {
  served ??= createResponseValidator(openApiDocument, precompiledValidators());
  served(observed);
}
