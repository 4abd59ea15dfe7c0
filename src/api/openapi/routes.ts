import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router, type Response } from 'express';
import { jsonText } from '../http/json-text';
import { DOCS_CONTENT_SECURITY_POLICY, DOCS_INIT_SCRIPT, docsPage } from './docs-page';

const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const SWAGGER_UI_VERSION: string = JSON.parse(readFileSync(path.join(SWAGGER_UI_DIR, 'package.json'), 'utf8')).version;
/** Only these files of the package are served, not its demo page or source maps. */
const ASSETS = new Set(['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'favicon-16x16.png']);
/** The renderer's version is in the URL, so its files can be cached for good and an upgrade changes the URL. */
const ASSET_BASE = `/docs/assets/swagger-ui-${SWAGGER_UI_VERSION}`;

/** The document changes with each deployment: caches must revalidate (the ETag makes that cheap). */
const REVALIDATE = 'no-cache';

function pageHeaders(res: Response): Response {
  return res.set({
    'Cache-Control': REVALIDATE,
    'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
}

/** What `GET /` points to: someone who opens the server's address finds the description from there. */
const INDEX = { docs: '/docs', openapi: '/openapi.json', api: '/ext/v2/{businessname}', health: '/healthz', ready: '/readyz' };

/**
 * The document and its page, built at their first request: building it (zod's JSON Schema of every contract) is
 * a fifth of what loading the API costs, and most processes that load the API never serve it.
 */
function describedOnce(): () => { json: string; page: string } {
  let built: { json: string; page: string } | undefined;
  return () => {
    if (built) return built;
    const { openApiDocument } = require('./document') as typeof import('./document');
    built = { json: jsonText(openApiDocument), page: docsPage(ASSET_BASE, openApiDocument.info.title) };
    return built;
  };
}

/** GET /, GET /openapi.json and GET /docs, without authentication: the description is public, the API is not. */
export function openApiRouter(): Router {
  const router = Router();
  const described = describedOnce();

  router.get('/', (req, res) => {
    res.vary('Accept');
    if (req.accepts(['json', 'html']) === 'html') return res.redirect(302, '/docs');
    res.json(INDEX);
  });
  router.get('/openapi.json', (_req, res) => {
    res.set({ 'Cache-Control': REVALIDATE, 'Access-Control-Allow-Origin': '*' }).type('application/json').send(described().json);
  });
  router.get('/docs', (_req, res) => {
    pageHeaders(res).type('html').send(described().page);
  });
  router.get('/docs/init.js', (_req, res) => {
    pageHeaders(res).type('text/javascript').send(DOCS_INIT_SCRIPT);
  });
  router.get(`${ASSET_BASE}/:file`, (req, res, next) => {
    if (!ASSETS.has(req.params.file)) return next();
    // The API's no-store default would otherwise win: send keeps a Cache-Control it finds.
    res.set({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'public, max-age=31536000, immutable' }).sendFile(path.join(SWAGGER_UI_DIR, req.params.file), { maxAge: '365d', immutable: true });
  });
  return router;
}
