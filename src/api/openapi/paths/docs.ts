import type { ApiPart } from '../components';
import { operation } from '../components';

export const docsApi: ApiPart = {
  tags: [{ name: 'Documentation', description: 'This description, as JSON and as a page; no token needed.' }],
  paths: {
    '/': {
      get: operation('getIndex', 'Documentation', 'Where to start', {
        description: 'A browser (`Accept: text/html`) is sent to `/docs`; anything else gets the addresses of the description, the API and the health checks.',
        security: [],
        responses: {
          200: {
            description: 'Where the description and the API are.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['docs', 'openapi', 'api'],
                  additionalProperties: false,
                  properties: {
                    docs: { const: '/docs', description: 'This description as a browsable page.' },
                    openapi: { const: '/openapi.json', description: 'This OpenAPI document.' },
                    api: { const: '/ext/v2/{businessname}', description: 'The prefix of every business route; a JWT bearer token is needed there.' },
                    health: { const: '/healthz' },
                    ready: { const: '/readyz' },
                  },
                },
                example: { docs: '/docs', openapi: '/openapi.json', api: '/ext/v2/{businessname}', health: '/healthz', ready: '/readyz' },
              },
            },
          },
          302: { description: 'To `/docs`, for a browser.', headers: { Location: { schema: { const: '/docs' } } } },
        },
      }),
    },
    '/openapi.json': {
      get: operation('getOpenApiDocument', 'Documentation', 'This OpenAPI document', {
        security: [],
        responses: {
          200: {
            description: 'The OpenAPI 3.1 document of this API.',
            content: { 'application/json': { schema: { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { type: 'string', pattern: '^3\\.1\\.' }, info: { type: 'object' }, paths: { type: 'object' } } } } },
          },
        },
      }),
    },
    '/docs': {
      get: operation('getDocs', 'Documentation', 'This document as a browsable page', {
        description: 'Rendered by Swagger UI, served by the API itself: the page loads nothing from other hosts.',
        security: [],
        responses: { 200: { description: 'An HTML page.', content: { 'text/html': { schema: { type: 'string' } } } } },
      }),
    },
  },
};
