import type { ApiPart } from '../components';
import { operation } from '../components';

export const docsApi: ApiPart = {
  tags: [{ name: 'Documentation', description: 'This description, as JSON and as a page; no token needed.' }],
  paths: {
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
