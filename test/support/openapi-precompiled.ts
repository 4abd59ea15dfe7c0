import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import standaloneCode from 'ajv/dist/standalone';
import { openApiDocument } from '../../src/api/openapi/document';
import { PROJECT_ROOT } from '../../src/paths';
import { DOCUMENT_ID, documentAjv, escapePointer, follow, METHODS, pointerOf } from './openapi';

/** Every schema a response can be checked against: each documented response's headers and bodies. */
export function responseSchemaPointers(document: Record<string, any>): string[] {
  const pointers = new Set<string>();
  for (const [template, item] of Object.entries<any>(document.paths ?? {})) {
    for (const method of METHODS) {
      for (const [status, declared] of Object.entries<any>(item?.[method]?.responses ?? {})) {
        const response = follow(document, declared, pointerOf('paths', template, method, 'responses', status));
        for (const [name, header] of Object.entries<any>(response.value?.headers ?? {})) {
          const followed = follow(document, header, `${response.pointer}/headers/${escapePointer(name)}`);
          if (followed.value?.schema) pointers.add(`${followed.pointer}/schema`);
        }
        for (const [mediaType, content] of Object.entries<any>(response.value?.content ?? {})) {
          if (content?.schema) pointers.add(`${response.pointer}/content/${escapePointer(mediaType)}/schema`);
        }
      }
    }
  }
  return [...pointers];
}

/**
 * Compiles every response schema of the served document once, as one CommonJS module the files of the
 * run require (under node_modules, so the module's own requires of ajv's runtime resolve), named after
 * the document, so a run whose document is unchanged compiles nothing. Returns its path.
 */
export async function writePrecompiledValidators(): Promise<string> {
  const source = JSON.stringify(openApiDocument);
  const digest = createHash('sha256').update(source).update(require('ajv/package.json').version).digest('hex').slice(0, 16);
  const dir = join(PROJECT_ROOT, 'node_modules', '.cache', 'crm-openapi-validators');
  const path = join(dir, `${digest}.js`);
  if (existsSync(path)) return path;
  const ajv = documentAjv(openApiDocument, { code: { source: true } });
  const pointers = responseSchemaPointers(openApiDocument);
  const code = standaloneCode(ajv, Object.fromEntries(pointers.map((pointer, i) => [`v${i}`, `${DOCUMENT_ID}${pointer}`])));
  await mkdir(dir, { recursive: true });
  const partial = `${path}.${process.pid}`;
  await writeFile(partial, `${code}\nexports.pointers = ${JSON.stringify(pointers)};\n`);
  await rename(partial, path);
  return path;
}
