import type { z } from 'zod';
import { BUSINESS_PATTERN, INVALID_BUSINESS } from '../../use-cases/input/validation';
import {
  BAD_BODY_OR_PATH as BAD_BODY_OR_PATH_DOC,
  BAD_PATH as BAD_PATH_DOC,
  type ProblemExample,
  type ResponseDoc,
  UNKNOWN_BUSINESS as UNKNOWN_BUSINESS_DOC,
} from '../../use-cases/input/operation-docs';

/**
 * Building blocks shared by every part of the API description: the problem document, the common
 * parameters, headers and responses, and helpers that keep each route's description short.
 */

/** OpenAPI objects are plain JSON; the shapes are checked by test/api/in-process/openapi-document.ts, not by types. */
export type OpenApiObject = Record<string, any>;

/** One feature's share of the document: its paths and the schemas only it uses. */
export interface ApiPart {
  paths: Record<string, OpenApiObject>;
  /** Its contracts' named zod schemas (`.meta({ id })`), which become components.schemas: requests as read, responses as sent. */
  contracts?: { requests?: readonly z.ZodType[]; responses?: readonly z.ZodType[] };
  /** Requests the service itself sends (OpenAPI 3.1 `webhooks`). */
  webhooks?: Record<string, OpenApiObject>;
  schemas?: Record<string, OpenApiObject>;
  tags?: OpenApiObject[];
}

export const PREFIX = '/ext/v2/{businessname}';

export const ref = (kind: 'schemas' | 'parameters' | 'headers' | 'responses', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** The problem types each status can carry; the title is Node's reason phrase, as the server sends it. */
const PROBLEMS: Record<number, { name: string; title: string; types: string[] }> = {
  400: { name: 'BadRequestProblem', title: 'Bad Request', types: ['/problems/invalid-request', '/problems/malformed-json', '/problems/bad-request'] },
  401: { name: 'UnauthorizedProblem', title: 'Unauthorized', types: ['/problems/unauthorized'] },
  403: { name: 'ForbiddenProblem', title: 'Forbidden', types: ['/problems/forbidden'] },
  404: { name: 'NotFoundProblem', title: 'Not Found', types: ['/problems/not-found'] },
  409: { name: 'ConflictProblem', title: 'Conflict', types: ['/problems/conflict'] },
  413: { name: 'PayloadTooLargeProblem', title: 'Payload Too Large', types: ['/problems/payload-too-large'] },
  415: { name: 'UnsupportedMediaTypeProblem', title: 'Unsupported Media Type', types: ['/problems/unsupported-media-type'] },
  422: { name: 'IdempotencyKeyReusedProblem', title: 'Unprocessable Entity', types: ['/problems/idempotency-key-reused'] },
  429: { name: 'RateLimitedProblem', title: 'Too Many Requests', types: ['/problems/rate-limited'] },
  500: { name: 'InternalProblem', title: 'Internal Server Error', types: ['/problems/internal'] },
  502: { name: 'BadGatewayProblem', title: 'Bad Gateway', types: ['/problems/media-too-large'] },
  503: { name: 'UnavailableProblem', title: 'Service Unavailable', types: ['/problems/unavailable'] },
  504: { name: 'TimeoutProblem', title: 'Gateway Timeout', types: ['/problems/timeout'] },
};

const problemSchemas = Object.fromEntries(
  Object.entries(PROBLEMS).map(([status, { name, title, types }]) => [
    name,
    {
      type: 'object',
      allOf: [ref('schemas', 'Problem')],
      properties: { type: { enum: types }, title: { const: title }, status: { const: Number(status) } },
    },
  ]),
);

/**
 * A problem+json response for `status`, with one named example per detail text the route can send.
 * `headers` are header names from components.headers.
 */
export type { ProblemExample };
export function problem(status: number, description: string, examples: Record<string, ProblemExample>, headers: string[] = []): OpenApiObject {
  const { name, title, types } = PROBLEMS[status];
  return {
    description,
    ...(headers.length > 0 && { headers: Object.fromEntries(headers.map((h) => [h, ref('headers', h)])) }),
    content: {
      'application/problem+json': {
        schema: ref('schemas', name),
        examples: Object.fromEntries(
          Object.entries(examples).map(([key, example]) => {
            const { type, detail } = typeof example === 'string' ? { type: types[0], detail: example } : example;
            return [key, { summary: detail, value: { type, title, status, detail } }];
          }),
        ),
      },
    },
  };
}

/** A JSON response whose body is `schema`. */
export function json(description: string, schema: OpenApiObject, extra: OpenApiObject = {}): OpenApiObject {
  const { example, headers } = extra;
  return {
    description,
    ...(headers && { headers }),
    content: { 'application/json': { schema, ...(example !== undefined && { example }) } },
  };
}

/** `{businessname}` as the API accepts it (BUSINESS_PATTERN). */
export const BUSINESS_NAME_SCHEMA = { type: 'string', pattern: BUSINESS_PATTERN.source };

/** An operation's status as its feature documents it (src/use-cases/input/operation-docs.ts), as a problem+json response. */
export const problemOf = (status: number, doc: ResponseDoc): OpenApiObject => problem(status, doc.description, doc.examples as Record<string, ProblemExample>, doc.headers);
export const BAD_PATH = problemOf(400, BAD_PATH_DOC);
export const BAD_BODY_OR_PATH = problemOf(400, BAD_BODY_OR_PATH_DOC);
export const UNKNOWN_BUSINESS = problemOf(404, UNKNOWN_BUSINESS_DOC);

/** A path under the business prefix: its operations, and the parameters of the path after `businessname`. */
export function inBusiness(operations: OpenApiObject, ...pathParameters: OpenApiObject[]): OpenApiObject {
  return { parameters: [ref('parameters', 'businessname'), ...pathParameters], ...operations };
}

/** An operation under one tag; `rest` holds what follows the summary (description, parameters, body, responses), in that order. */
export function operation(operationId: string, tag: string, summary: string, rest: OpenApiObject): OpenApiObject {
  return { operationId, tags: [tag], summary, ...rest };
}

/** The responses every business route shares, by status. */
export const common = {
  401: ref('responses', 'Unauthorized'),
  403: ref('responses', 'WrongBusiness'),
  413: ref('responses', 'PayloadTooLarge'),
  415: ref('responses', 'UnsupportedMediaType'),
  429: ref('responses', 'RateLimited'),
  500: ref('responses', 'InternalError'),
  503: ref('responses', 'Unavailable'),
};

/** The shared statuses of a route under the business prefix; `withBody` adds what a request body can cause. */
export function businessResponses(withBody: boolean): OpenApiObject {
  return withBody
    ? { 401: common[401], 403: common[403], 413: common[413], 415: common[415], 429: common[429], 500: common[500], 503: common[503] }
    : { 401: common[401], 403: common[403], 429: common[429], 500: common[500], 503: common[503] };
}

/** A parameter of the path. */
export function pathParameter(name: string, description: string, schema: OpenApiObject, example?: string): OpenApiObject {
  return { name, in: 'path', required: true, description, schema, ...(example !== undefined && { example }) };
}

/** An optional parameter of the query. */
export function queryParameter(name: string, description: string, schema: OpenApiObject, example?: string): OpenApiObject {
  return { name, in: 'query', required: false, description, schema, ...(example !== undefined && { example }) };
}

/** The `_id` path parameter of a resource; `description` says which ids are answered like a missing one. */
export function idParameter(description: string, example: string): OpenApiObject {
  return pathParameter('_id', description, { type: 'string' }, example);
}

const NEXT_CURSOR = { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page.' };

/** One page of a list: `field` holds the page's items in the order `description` says, `next_cursor` leads to the next page. */
export function pageSchema(field: string, items: OpenApiObject, description?: string): OpenApiObject {
  const array = { type: 'array', items, ...(description !== undefined && { description }) };
  return closedObject([field, 'next_cursor'], { [field]: array, next_cursor: NEXT_CURSOR });
}

/** A closed object: no property but `properties`, and the `required` ones always there. */
export function closedObject(required: string[], properties: OpenApiObject): OpenApiObject {
  return { type: 'object', required, additionalProperties: false, properties };
}

export const components: OpenApiObject = {
  securitySchemes: {
    adminAuth: {
      type: 'http',
      scheme: 'bearer',
      description: 'The operator credential: the bearer secret `ADMIN_TOKEN` (npm start generates one and prints where), or a JWT whose `aud` is `ADMIN_JWT_AUDIENCE`.',
    },
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'A JWT signed with HS256 (the server\'s `JWT_SECRET`) or RS256/ES256 (its `JWT_PUBLIC_KEY`); no other algorithm is accepted. ' +
        '`sub` (the user id, at most 200 characters) and `exp` are required; `iss`, `aud` and `nbf` are checked when the server is configured for them. ' +
        'When the server sets `JWT_BUSINESS_CLAIM` (say `org`), that claim — a business name or an array of them — must name the business in the path, exactly, or the answer is a 403. ' +
        'For development, `npm run token -- <userId>` prints one.',
    },
  },
  parameters: {
    businessname: {
      name: 'businessname',
      in: 'path',
      required: true,
      description:
        'The business: 1–64 characters of `A-Z a-z 0-9 . _ -`, starting with a letter or digit, without two dots in a row (so never `.`, `..` or `...`). ' +
        `Any other name is a 400 \`${INVALID_BUSINESS}\`, before the token is read.`,
      schema: BUSINESS_NAME_SCHEMA,
      example: 'acme',
    },
  },
  headers: {
    'WWW-Authenticate': { description: 'The authentication scheme to use.', required: true, schema: { type: 'string', const: 'Bearer' } },
    'Retry-After': {
      description: 'Seconds to wait before trying again (or, after a 504, before looking at the outcome). Sent when PostgreSQL or Temporal cannot be reached or is behind.',
      schema: { type: 'integer', minimum: 0 },
    },
    Location: { description: 'Path of the created resource.', required: true, schema: { type: 'string', format: 'uri-reference' } },
  },
  schemas: {
    Problem: {
      type: 'object',
      description: 'RFC 9457 problem details, sent as `application/problem+json`.',
      required: ['type', 'title', 'status', 'detail'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', format: 'uri-reference', description: 'The kind of problem; stable, relative to this server.' },
        title: { type: 'string', description: 'The HTTP reason phrase of `status`.' },
        status: { type: 'integer', minimum: 400, maximum: 599 },
        detail: { type: 'string', description: 'What went wrong with this request, for a human. The texts of the interface document are kept exactly.' },
        hint: {
          type: 'string',
          description: 'What to do about it, where `detail` is a text the interface document fixes: `Invalid delay` comes with the forms a delay takes.',
          examples: ['A delay is a whole number of seconds (90), numbers with units s, m, h, d (90s, 5m, 1h30m), or an ISO 8601 duration (PT5M, P1D); empty or 0 sends now; at most 10 years'],
        },
        instance: {
          type: 'string',
          pattern: '^urn:request:[A-Za-z0-9._:-]{1,128}$',
          description: 'This occurrence: the request id the answer also carries in `X-Request-Id`. Quote it in a support ticket.',
          examples: ['urn:request:6f1c1c64-8f3e-4d3a-9a55-0d4f4f0c2b11'],
        },
      },
    },
    ...problemSchemas,
  },
  responses: {
    Unauthorized: problem(
      401,
      'The bearer token is missing, malformed, expired, living longer than JWT_MAX_AGE allows, or not signed with the server\'s key.',
      {
        missing: 'Missing or malformed bearer token',
        invalid: 'Invalid token',
        expired: 'Token expired',
        noSubject: 'Token has no subject',
        noExpiry: 'Token has no expiry',
        noIssuedAt: 'Token has no issue time (iat)',
        tooLong: 'Token lives longer than the maximum of 3600 seconds',
        longSubject: 'Token subject is longer than 200 characters',
        unstorableSubject: 'Token subject contains NUL characters or unpaired surrogates',
        twoAuthorizations: 'More than one Authorization header',
      },
      ['WWW-Authenticate'],
    ),
    WrongBusiness: problem(
      403,
      'Only when the server sets `JWT_BUSINESS_CLAIM`: the token\'s claim of that name does not name the business in the path, or the token has no such claim. ' +
        'Checked right after the token, before anything else of the request is read, and the same whether the business has any data or not.',
      {
        wrongBusiness: 'Token is not valid for this business',
        claimMissing: 'Token is not valid for this business: it has no "org" claim, which names the businesses a token acts for here (JWT_BUSINESS_CLAIM)',
      },
    ),
    PayloadTooLarge: problem(413, 'The body is larger than 100 kB (5 MB for `POST /messages/batch`), counted decompressed: a compressed body is refused as soon as it inflates past the limit.', {
      tooLarge: 'Request body is larger than 100 kB',
      tooLargeCampaign: 'Request body is larger than 5 MB',
    }),
    UnsupportedMediaType: problem(415, 'The body is not declared JSON (`Content-Type: application/json` or `application/*+json`; checked before it is read), or its charset or content encoding is not one the server reads (JSON in UTF-8).', {
      notJson: 'Content-Type must be application/json',
      encoding: 'Unsupported body encoding',
    }),
    RateLimited: problem(
      429,
      'More requests than `RATE_LIMIT_PER_MINUTE` allows this user in a minute, counted across businesses (1,200 in production unless the operator set another; none elsewhere unless set). Try again after `Retry-After` seconds.',
      { rateLimited: { type: '/problems/rate-limited', detail: 'Too many requests: at most 1200 a minute per user' } },
      ['Retry-After'],
    ),
    InternalError: problem(500, 'An unexpected error; the body never carries a stack trace.', { internal: 'Internal server error' }),
    Unavailable: problem(
      503,
      'PostgreSQL or Temporal cannot be reached, is starting up, or kept failing until the request gave up; or the service is busy (`The service is busy; try again in 1 s`): this caller already has its share of the work in flight to Temporal. Nothing was done. Try again after `Retry-After` seconds.',
      { unavailable: 'A backing service is unavailable; try again shortly' },
      ['Retry-After'],
    ),
  },
};
