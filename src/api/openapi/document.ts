import { SHARED_SCHEMAS } from '../../use-cases/input/contract';
import { components, type ApiPart, type OpenApiObject } from './components';
import { componentSchemas } from './from-zod';
import { agentsApi } from './paths/agents';
import { assignmentsApi } from './paths/assignments';
import { clientsApi } from './paths/clients';
import { clientConsentsApi } from './paths/client-consents';
import { docsApi } from './paths/docs';
import { eventsApi } from './paths/events';
import { healthApi } from './paths/health';
import { messagesApi } from './paths/messages';
import { messageBatchesApi } from './paths/message-batches';
import { messageChannelsApi } from './paths/message-channels';
import { templatesApi } from './paths/templates';
import { optOutsApi } from './paths/opt-outs';
import { conversationsApi } from './paths/conversations';
import { unmatchedInboundApi } from './paths/unmatched-inbound';
import { providersApi } from './paths/providers';
import { webhooksApi } from './paths/webhooks';
import { rotationApi } from './paths/rotation';
import { routingApi } from './paths/routing';
import { adminApi } from './paths/admin';
import { integrationsApi } from './paths/integrations';

/** Each feature describes its own routes; a new feature (webhooks, events, rotation) adds its part here. */
const PARTS: ApiPart[] = [clientsApi, clientConsentsApi, agentsApi, assignmentsApi, rotationApi, routingApi, messagesApi, messageChannelsApi, messageBatchesApi, templatesApi, conversationsApi, unmatchedInboundApi, optOutsApi, webhooksApi, eventsApi, integrationsApi, providersApi, adminApi, healthApi, docsApi];

function merge<T>(target: Record<string, T>, source: Record<string, T> | undefined, what: string): void {
  for (const [key, value] of Object.entries(source ?? {})) {
    if (key in target) throw new Error(`OpenAPI ${what} ${key} is described twice`);
    target[key] = value;
  }
}

const DESCRIPTION = `Assign agents to clients — each assignment expiring by itself at a date — and send messages to clients by SMS, MMS or WhatsApp, now or later.

**Authentication.** Every route under \`/ext/v2/{businessname}\` needs \`Authorization: Bearer <JWT>\`; anything wrong with it is a 401 with \`WWW-Authenticate: Bearer\`. When the server binds tokens to businesses (\`JWT_BUSINESS_CLAIM\`), a token whose claim does not name the path's business is a 403 \`Token is not valid for this business\`.

**Ownership.** Clients, agents and messages belong to one user (the token's \`sub\`) inside one business (the path segment). Another user's or another business's resource is answered exactly like a missing one: 404 for clients and messages, 400 \`Agent {id} not found or not authorized\` for agents. Never 403 for a resource: the only 403 of these routes is a token bound to another business, which says nothing of what the business holds.

**Errors** are RFC 9457 problem details: \`Content-Type: application/problem+json\` and \`{ "type", "title", "status", "detail" }\`. \`type\` is stable and meant for code; \`detail\` is for people. A body declared JSON that does not parse is a 400, one over 100 kB a 413, one not declared JSON a 415. When PostgreSQL or Temporal cannot be reached the answer is a 503 with \`Retry-After\` and nothing was done.

**Data.** Ids are strings; dates in answers are ISO 8601 in UTC. A request body must be declared JSON (\`Content-Type: application/json\`, or an \`application/*+json\` type), else it is a 415 \`Content-Type must be application/json\`; a request without a body needs none. A field a route does not describe, at any depth, is a 400 \`Unknown field: {path}\` (\`Unknown field: agents[0].role\`) and nothing is stored: a misspelled field is never read as absent. It is checked after the route's own checks of the fields it names (the seed's checks keep their order and texts); an action without a body (\`…/cancel\`, \`…/close\`) refuses any field.`;

function buildDocument(): OpenApiObject {
  const paths: Record<string, OpenApiObject> = {};
  const webhooks: Record<string, OpenApiObject> = {};
  const requests = PARTS.flatMap((part) => part.contracts?.requests ?? []);
  const responses = [...SHARED_SCHEMAS, ...PARTS.flatMap((part) => part.contracts?.responses ?? [])];
  const schemas: Record<string, OpenApiObject> = { ...components.schemas };
  merge(schemas, componentSchemas(requests, responses), 'schema');
  const tags: OpenApiObject[] = [];
  for (const part of PARTS) {
    merge(paths, part.paths, 'path');
    merge(webhooks, part.webhooks, 'webhook');
    merge(schemas, part.schemas, 'schema');
    tags.push(...(part.tags ?? []));
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'CRM messaging API',
      version: '2.0.0',
      description: DESCRIPTION,
    },
    // Relative, so the document is right on whichever host and port serves it.
    servers: [{ url: '/', description: 'The server that serves this document' }],
    security: [{ bearerAuth: [] }],
    tags,
    paths,
    webhooks,
    components: { ...components, schemas },
  };
}

/** The OpenAPI 3.1 description of every route, from each feature's contract and operations (src/use-cases/<feature>/). */
export const openApiDocument: OpenApiObject = buildDocument();
